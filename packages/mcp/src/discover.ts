import { type CompiledAgent, type CompiledMcpServer, externalParametersSchema, mcpToolName } from '@agentry/config';
import { type FieldIssue, toAppError } from '@agentry/errors';
import type { EgressPolicy } from '@agentry/http-tools';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  DiscoveredPrompt,
  DiscoveredResource,
  DiscoveredTool,
  DiscoveredTools,
  DiscoveryWarning,
} from './discovered-tools.ts';
import { connectMcpServer } from './mcp-connection.ts';
import { builtinTools } from './resource-prompt-tools.ts';
import type { StdioServerDefinitions } from './stdio-servers.ts';

export interface DiscoverOptions {
  secrets: Record<string, string>;
  egress?: EgressPolicy;
  /** The platform operator's stdio servers. */
  stdioServers?: StdioServerDefinitions;
}

/** Names providers accept for tools (OpenAI's rule, the strictest). */
const toolNamePattern = /^[A-Za-z0-9_-]{1,64}$/;
const maxPages = 20;
const maxDescription = 1024;

type ServerOutcome = {
  tools: DiscoveredTool[];
  resources: DiscoveredResource[];
  prompts: DiscoveredPrompt[];
  warnings: DiscoveryWarning[];
  issues: FieldIssue[];
};

/**
 * Publish-time discovery: connects to every enabled server of the agent (in parallel, each within
 * its timeout, through the egress guard), lists its tools, resources and prompts, and checks each
 * tool's input schema against the tenant-schema limits of HTTP tools.
 *
 * Outcome rules: a server that cannot be reached (or is refused by the egress rules) is an issue
 * `mcp_unreachable` (or the `egress_*` code) at `/mcp_servers/<i>`. A tool whose schema or name
 * does not pass is left out with a warning — unless the server's `tools` allow-list names it, in
 * which case the tenant asked for exactly that tool and it is an issue (`mcp_tool_schema_refused`,
 * `mcp_tool_name_invalid`); an allow-listed tool the server does not have is `mcp_tool_not_found`.
 *
 * @example
 * const result = await discoverMcpTools(compiled, { secrets, egress });
 * if (!result.ok) throw errors.validation('MCP discovery failed', result.issues);
 */
export async function discoverMcpTools(
  agent: Pick<CompiledAgent, 'mcpServers'>,
  options: DiscoverOptions,
): Promise<{ ok: true; discovered: DiscoveredTools } | { ok: false; issues: FieldIssue[] }> {
  const outcomes = await Promise.all(
    agent.mcpServers.map((server, index) =>
      server.enabled ? discoverServer(server, index, options) : Promise.resolve(undefined),
    ),
  );
  const done = outcomes.filter((o): o is ServerOutcome => o !== undefined);
  const issues = done.flatMap((o) => o.issues);
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    discovered: {
      discovered_at: new Date().toISOString(),
      tools: done.flatMap((o) => o.tools),
      resources: done.flatMap((o) => o.resources),
      prompts: done.flatMap((o) => o.prompts),
      warnings: done.flatMap((o) => o.warnings),
    },
  };
}

async function discoverServer(
  server: CompiledMcpServer,
  index: number,
  options: DiscoverOptions,
): Promise<ServerOutcome> {
  const at = `/mcp_servers/${index}`;
  const outcome: ServerOutcome = { tools: [], resources: [], prompts: [], warnings: [], issues: [] };
  // Several round trips, each bounded by the server's timeout; the streams live a little longer.
  const lifetimeMs = server.timeoutMs * (maxPages + 4);
  let connection: Awaited<ReturnType<typeof connectMcpServer>> | undefined;
  try {
    connection = await connectMcpServer(server, { ...options, lifetimeMs });
    const listed = await listAllTools(connection.client, server.timeoutMs);
    const capabilities = connection.client.getServerCapabilities() ?? {};
    const builtins = builtinTools(server, { resources: !!capabilities.resources, prompts: !!capabilities.prompts });
    checkTools(server, at, listed, outcome, new Set(builtins.map((b) => b.tool)));
    outcome.tools.push(...builtins);
    for (const [wanted, declared, key] of [
      [server.exposeResources, !!capabilities.resources, 'resources'],
      [server.exposePrompts, !!capabilities.prompts, 'prompts'],
    ] as const) {
      if (!wanted || declared) continue;
      outcome.warnings.push({
        code: `mcp_no_${key}`,
        message: `MCP server \`${server.name}\` does not offer ${key}, so its ${key} tools are not offered to the model`,
        path: `${at}/expose_${key}`,
        server: server.name,
      });
    }
    // Resources and prompts are informational: a server failing to list them still publishes.
    if (capabilities.resources) {
      const resources = await connection.client
        .listResources(undefined, { timeout: server.timeoutMs })
        .catch(() => ({ resources: [] }));
      for (const r of resources.resources) {
        outcome.resources.push({
          server: server.name,
          uri: r.uri,
          name: r.name,
          ...(r.mimeType ? { mime_type: r.mimeType } : {}),
        });
      }
    }
    if (capabilities.prompts) {
      const prompts = await connection.client
        .listPrompts(undefined, { timeout: server.timeoutMs })
        .catch(() => ({ prompts: [] }));
      for (const p of prompts.prompts) {
        outcome.prompts.push({
          server: server.name,
          name: p.name,
          ...(p.description ? { description: p.description } : {}),
        });
      }
    }
  } catch (error) {
    // connectMcpServer already explains its own failures; later ones are explained by the session.
    const explained = connection ? connection.explain(error) : toAppError(error);
    const refused =
      explained.code.startsWith('egress_') ||
      explained.code === 'missing_secret' ||
      explained.code === 'mcp_stdio_unavailable';
    outcome.issues.push({
      path: at,
      code: refused ? explained.code : 'mcp_unreachable',
      message: `MCP server \`${server.name}\` could not be used: ${explained.message}`,
      hint: explained.code.startsWith('egress_')
        ? 'the URL points at an address tools may not reach; use a public address, or ask the platform operator to allowlist it'
        : server.transport === 'stdio'
          ? 'the platform operator defines how stdio servers start; ask them to check the server'
          : 'check that the server is running and that its url and transport are right, then upload again',
    });
  } finally {
    await connection?.close();
  }
  return outcome;
}

type ListedTool = { name: string; title?: string; description?: string; inputSchema: unknown };

async function listAllTools(client: Client, timeoutMs: number): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const result = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

function checkTools(
  server: CompiledMcpServer,
  at: string,
  listed: ListedTool[],
  outcome: ServerOutcome,
  reserved: ReadonlySet<string>,
): void {
  const allow = server.allowTools;
  for (const wanted of allow ?? []) {
    if (!listed.some((t) => t.name === wanted)) {
      const j = allow!.indexOf(wanted);
      outcome.issues.push({
        path: `${at}/tools/${j}`,
        code: 'mcp_tool_not_found',
        message: `MCP server \`${server.name}\` has no tool \`${wanted}\``,
        hint: `its tools: ${listed.map((t) => t.name).join(', ') || 'none'}`,
      });
    }
  }
  const seen = new Set<string>();
  for (const tool of listed) {
    if (allow && !allow.includes(tool.name)) continue;
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    const name = mcpToolName(server.name, tool.name);
    const allowIndex = allow ? allow.indexOf(tool.name) : -1;
    // Refused outright when the tenant named the tool; otherwise left out with a warning.
    const problem = (code: string, message: string) => {
      if (allowIndex >= 0) {
        outcome.issues.push({ path: `${at}/tools/${allowIndex}`, code, message });
      } else {
        outcome.warnings.push({
          code,
          message: `${message}; it is not offered to the model`,
          path: at,
          server: server.name,
          tools: [tool.name],
        });
      }
    };
    if (reserved.has(tool.name)) {
      problem(
        'mcp_tool_name_reserved',
        `MCP tool \`${tool.name}\` of \`${server.name}\` has the name of the tool offered for its resources or prompts`,
      );
      continue;
    }
    if (!toolNamePattern.test(name)) {
      problem(
        'mcp_tool_name_invalid',
        `MCP tool \`${tool.name}\` of \`${server.name}\` would be named \`${name}\`, which models do not accept (letters, digits, _ and -, at most 64)`,
      );
      continue;
    }
    // Pointers are relative to the input schema: it is the server's document, not the config.
    const checked = externalParametersSchema(tool.inputSchema, '');
    if (!checked.ok) {
      const first = checked.issues[0];
      problem(
        'mcp_tool_schema_refused',
        `the input schema of MCP tool \`${tool.name}\` of \`${server.name}\` is outside the limits of tool parameters (${first?.code}: ${first?.message})`,
      );
      continue;
    }
    outcome.tools.push({
      name,
      server: server.name,
      tool: tool.name,
      description: (tool.description || tool.title || tool.name).slice(0, maxDescription),
      input_schema: checked.parameters,
    });
  }
}
