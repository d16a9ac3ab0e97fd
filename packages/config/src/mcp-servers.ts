import type { McpServerConfig } from '@agentry/contract';
import { errors, type FieldIssue } from '@agentry/errors';
import type { CompiledMcpServer } from './compiled-agent.ts';
import { pointer } from './json-pointer.ts';
import { compileRequestTemplate, renderRequest } from './request-template.ts';
import { didYouMean } from './suggest.ts';

type Json = Record<string, unknown>;

/** Separates a server's name from its tool's name in the name the model sees (`crm__search`). */
export const MCP_TOOL_SEPARATOR = '__';
/** Skills are offered as `skill__<name>`, so no MCP server may be called `skill`. */
export const SKILL_TOOL_PREFIX = `skill${MCP_TOOL_SEPARATOR}`;

/** Tools a server with `expose_resources` offers besides its own (`crm__list_resources`, ...). */
export const MCP_RESOURCE_TOOLS = ['list_resources', 'read_resource'] as const;
/** Tools a server with `expose_prompts` offers besides its own. */
export const MCP_PROMPT_TOOLS = ['list_prompts', 'get_prompt'] as const;

/**
 * The name the model sees for a server's tool.
 *
 * @example
 * mcpToolName('crm', 'search'); // 'crm__search'
 */
export function mcpToolName(server: string, tool: string): string {
  return `${server}${MCP_TOOL_SEPARATOR}${tool}`;
}

/**
 * Cross-field rules of `mcp_servers`: unique names, stdio only as a name (`server`), a URL for HTTP
 * transports, and no HTTP tool inside a server's `server__` name space (an HTTP tool called
 * `crm__search` could silently shadow, or be shadowed by, the `crm` server's `search`).
 * Defensive about shape, like the other cross-field checks.
 *
 * @example
 * mcpServerIssues({ mcp_servers: [{ name: 'crm', transport: 'stdio' }] }); // [{ path: '/mcp_servers/0/server', code: 'missing_key' }]
 */
export function mcpServerIssues(doc: Json): FieldIssue[] {
  const servers = Array.isArray(doc.mcp_servers) ? doc.mcp_servers : [];
  const issues: FieldIssue[] = [];
  const seen: string[] = [];
  servers.forEach((server, i) => {
    if (!isObject(server)) return;
    const name = typeof server.name === 'string' ? server.name : undefined;
    if (name !== undefined) {
      if (seen.includes(name)) {
        issues.push({
          path: pointer('mcp_servers', i, 'name'),
          code: 'duplicate_mcp_server',
          message: `mcp_servers[${i}] is named \`${name}\`, like mcp_servers[${seen.indexOf(name)}]`,
        });
      }
      if (name.toLowerCase() === 'skill') {
        issues.push({
          path: pointer('mcp_servers', i, 'name'),
          code: 'reserved_name',
          message: '`skill` is reserved: skills are offered to the model as skill__<name>',
        });
      }
      seen.push(name);
    }
    if (server.transport === 'stdio') {
      issues.push(...stdioShapeIssues(server, i));
    } else if (server.server !== undefined) {
      issues.push({
        path: pointer('mcp_servers', i, 'server'),
        code: 'stdio_only_key',
        message: `mcp_servers[${i}] has \`server\`, which only a stdio server uses`,
        hint: 'remove `server`, or set "transport": "stdio" to use a stdio server the platform operator defined',
      });
    }
    if (server.transport !== 'stdio' && server.url === undefined) {
      issues.push({
        path: pointer('mcp_servers', i, 'url'),
        code: 'missing_key',
        message: `mcp_servers[${i}] has no \`url\``,
        hint: 'for example https://mcp.example.com/mcp',
      });
    }
  });
  const tools = Array.isArray(doc.tools) ? doc.tools : [];
  tools.forEach((tool, i) => {
    if (!isObject(tool) || typeof tool.name !== 'string') return;
    const owner = seen.find((server) => (tool.name as string).startsWith(`${server}${MCP_TOOL_SEPARATOR}`));
    if (owner) {
      issues.push({
        path: pointer('tools', i, 'name'),
        code: 'tool_name_collision',
        message: `tools[${i}] is named \`${tool.name}\`, inside the names of MCP server \`${owner}\` (${owner}__<tool>)`,
        hint: `rename the tool so it does not start with \`${owner}__\``,
      });
    } else if (tool.name.startsWith(SKILL_TOOL_PREFIX)) {
      issues.push({
        path: pointer('tools', i, 'name'),
        code: 'tool_name_collision',
        message: `tools[${i}] is named \`${tool.name}\`; names starting with skill__ are reserved for skills`,
      });
    }
  });
  return issues;
}

/**
 * A stdio server in a tenant config only names a server the platform operator defined: no URL,
 * no headers (and no command: the schema has no key for one).
 */
function stdioShapeIssues(server: Json, i: number): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (server.server === undefined) {
    issues.push({
      path: pointer('mcp_servers', i, 'server'),
      code: 'missing_key',
      message: `mcp_servers[${i}] uses the stdio transport but does not name the operator's server`,
      hint: 'stdio servers are defined by the platform operator; name one with "server": "<name>", or use transport "http" with a url',
    });
  }
  for (const key of ['url', 'headers'] as const) {
    if (server[key] === undefined) continue;
    issues.push({
      path: pointer('mcp_servers', i, key),
      code: 'not_for_stdio',
      message: `mcp_servers[${i}] uses the stdio transport, which has no \`${key}\``,
      hint: 'the platform operator sets how a stdio server starts; remove the key, or use transport "http"',
    });
  }
  return issues;
}

/**
 * Upload-time check of stdio servers against what the platform operator enabled (`operator`: the
 * names of the operator's stdio servers; empty = stdio not enabled). A tenant config can only
 * name one of those; the command, arguments and environment stay with the operator.
 *
 * @example
 * stdioServerIssues(config, ['files']); // [] when every stdio server is `files`
 */
export function stdioServerIssues(
  config: { mcp_servers?: readonly McpServerConfig[] },
  operator: readonly string[],
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  (config.mcp_servers ?? []).forEach((server, i) => {
    if (server.transport !== 'stdio') return;
    if (operator.length === 0) {
      issues.push({
        path: pointer('mcp_servers', i, 'transport'),
        code: 'stdio_not_enabled',
        message: `mcp_servers[${i}] uses the stdio transport, which this platform does not run`,
        hint: 'expose the server over HTTP (transport "http" or "sse") and give its url, or ask the platform operator to define it',
      });
    } else if (server.server === undefined || !operator.includes(server.server)) {
      issues.push({
        path: pointer('mcp_servers', i, 'server'),
        code: 'unknown_stdio_server',
        message: `mcp_servers[${i}] names stdio server \`${server.server ?? ''}\`, which the platform operator has not defined`,
        hint:
          didYouMean(server.server ?? '', [...operator]) ?? `stdio servers on this platform: ${operator.join(', ')}`,
      });
    }
  });
  return issues;
}

/**
 * Compiles each server whose schema checks passed (URL and header templates, secrets only).
 * Issues carry pointers under `/mcp_servers/<index>`; `found` are the issues already reported,
 * so a server the schema rejected is not compiled again.
 *
 * @example
 * const result = compileMcpServers(config.mcp_servers ?? [], 30_000);
 */
export function compileMcpServers(
  servers: readonly McpServerConfig[],
  defaultTimeoutMs: number,
  found: readonly FieldIssue[] = [],
): { ok: true; servers: CompiledMcpServer[] } | { ok: false; issues: FieldIssue[] } {
  const issues: FieldIssue[] = [];
  const compiled: CompiledMcpServer[] = [];
  servers.forEach((server, i) => {
    const at = pointer('mcp_servers', i);
    if (found.some((issue) => issue.path === at || issue.path.startsWith(`${at}/`))) return;
    const common = {
      name: server.name,
      enabled: server.enabled ?? true,
      timeoutMs: server.timeout === undefined ? defaultTimeoutMs : Math.round(server.timeout * 1000),
      ...(server.tools ? { allowTools: [...server.tools] } : {}),
      exposeResources: server.expose_resources ?? false,
      exposePrompts: server.expose_prompts ?? false,
    };
    if (server.transport === 'stdio') {
      if (typeof server.server !== 'string') return;
      compiled.push({
        ...common,
        transport: 'stdio',
        stdioServer: server.server,
        secretNames: [],
        render: () => ({ url: '', headers: {} }),
      });
      return;
    }
    if (typeof server.url !== 'string') return;
    const template = compileRequestTemplate(
      { url: server.url, method: 'POST', ...(server.headers ? { headers: server.headers } : {}) },
      at,
      // Only secrets: discovery at publish time has no conversation, so context could not be filled.
      { parameters: [], context: [] },
    );
    if (!template.ok) {
      issues.push(...template.issues);
      return;
    }
    const request = template.template;
    const secrets = request.secrets;
    compiled.push({
      ...common,
      transport: server.transport === 'sse' ? 'sse' : 'http',
      secretNames: secrets,
      render: (values) => {
        const missing = secrets.filter((name) => typeof values[name] !== 'string');
        if (missing.length > 0) {
          throw errors.of({
            code: 'missing_secret',
            message: `MCP server \`${server.name}\` needs the secret(s) ${missing.join(', ')}, which this tenant has not configured`,
            category: 'user',
            retryable: false,
            details: { secrets: missing },
          });
        }
        const view = { context: Object.create(null), secrets: Object.assign(Object.create(null), values) };
        const rendered = renderRequest(request, view);
        return { url: rendered.url, headers: rendered.headers };
      },
    });
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, servers: compiled };
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Whether `name` can be one of the declared servers' tools (`server__tool`, inside the server's
 * allow-list when it has one). Action books and `tool_choice` may name MCP tools before discovery.
 *
 * @example
 * isDeclaredMcpToolName({ mcp_servers: [{ name: 'crm', url: 'https://x' }] }, 'crm__search'); // true
 */
export function isDeclaredMcpToolName(doc: Json, name: string): boolean {
  const servers = Array.isArray(doc.mcp_servers) ? doc.mcp_servers : [];
  return servers.some((server) => {
    if (!isObject(server) || typeof server.name !== 'string') return false;
    const prefix = `${server.name}${MCP_TOOL_SEPARATOR}`;
    if (!name.startsWith(prefix) || name.length === prefix.length) return false;
    const tool = name.slice(prefix.length);
    if (server.expose_resources === true && (MCP_RESOURCE_TOOLS as readonly string[]).includes(tool)) return true;
    if (server.expose_prompts === true && (MCP_PROMPT_TOOLS as readonly string[]).includes(tool)) return true;
    return !Array.isArray(server.tools) || server.tools.includes(tool);
  });
}
