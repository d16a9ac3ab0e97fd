import type { ToolExecutionResult, ToolExecutor } from '@agentry/agent';
import { type ArgumentsValidator, argumentsValidator, type CompiledMcpServer, maskSecrets } from '@agentry/config';
import type { EgressPolicy } from '@agentry/http-tools';
import type { ToolCallPart, ToolDefinition } from '@agentry/llm';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { DiscoveredTool, DiscoveredTools } from './discovered-tools.ts';
import { type McpCallResult, mapCallResult } from './map-call-result.ts';
import { connectMcpServer, type McpConnection } from './mcp-connection.ts';
import { builtinAllowed, runBuiltin } from './resource-prompt-tools.ts';
import type { StdioServerDefinitions } from './stdio-servers.ts';

export interface McpToolExecutorOptions {
  /** The agent's compiled servers (disabled ones offer nothing). */
  servers: readonly CompiledMcpServer[];
  /** What publish-time discovery stored with the version: the only tools offered. */
  discovered: DiscoveredTools | undefined;
  secrets: Record<string, string>;
  egress?: EgressPolicy;
  /** How long sessions may stay open: the run's remaining time. */
  lifetimeMs: number;
  /** The platform operator's stdio servers. */
  stdioServers?: StdioServerDefinitions;
}

/** A ToolExecutor for MCP tools that owns its sessions: call `close()` when the run ends. */
export interface McpToolExecutor extends ToolExecutor {
  close(): Promise<void>;
}

/**
 * Runs the MCP tools discovered at publish time. Only tools in the stored list (of servers still
 * enabled, inside their allow-list) are offered, so a server that changed its tools since cannot
 * slip a new one in. One client session per server per executor — per run — opened on the first
 * call and closed by `close()`; executors are never shared, so sessions never cross tenants or
 * runs. Never throws: bad arguments, unreachable servers, refusals, time-outs, cancellations and
 * the server's own errors all become error results the model reads.
 *
 * @example
 * const mcp = createMcpToolExecutor({ servers: agent.mcpServers, discovered, secrets, egress, lifetimeMs });
 * try { await runAgent({ ..., tools: mcp }); } finally { await mcp.close(); }
 */
export function createMcpToolExecutor(options: McpToolExecutorOptions): McpToolExecutor {
  const servers = new Map(options.servers.filter((s) => s.enabled).map((s) => [s.name, s]));
  const tools = new Map<string, { tool: DiscoveredTool; server: CompiledMcpServer; validate: ArgumentsValidator }>();
  for (const tool of options.discovered?.tools ?? []) {
    const server = servers.get(tool.server);
    if (!server) continue;
    // The resource and prompt tools follow the config's opt-in; the server's own tools its allow-list.
    if (
      tool.builtin ? !builtinAllowed(server, tool.builtin) : server.allowTools && !server.allowTools.includes(tool.tool)
    ) {
      continue;
    }
    tools.set(tool.name, { tool, server, validate: argumentsValidator(tool.input_schema) });
  }
  const definitions: ToolDefinition[] = [...tools.values()].map(({ tool }) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.input_schema,
  }));
  const sessions = new Map<string, Promise<McpConnection>>();
  let closed = false;

  const session = (server: CompiledMcpServer, signal: AbortSignal | undefined): Promise<McpConnection> => {
    let pending = sessions.get(server.name);
    if (!pending) {
      pending = connectMcpServer(server, {
        secrets: options.secrets,
        lifetimeMs: options.lifetimeMs,
        ...(options.egress ? { egress: options.egress } : {}),
        ...(options.stdioServers ? { stdioServers: options.stdioServers } : {}),
        ...(signal ? { signal } : {}),
      });
      sessions.set(server.name, pending);
      // A failed connection is forgotten, so a later call tries again (the server may be back).
      pending.catch(() => sessions.delete(server.name));
    }
    return pending;
  };

  const execute = async (call: ToolCallPart, signal: AbortSignal | undefined): Promise<ToolExecutionResult> => {
    const entry = tools.get(call.name);
    if (!entry) {
      return errorResult('unknown_tool', `There is no tool named "${call.name}".`, { available: [...tools.keys()] });
    }
    if (call.rawArguments !== undefined) {
      return errorResult('invalid_arguments', 'The arguments were not valid JSON. Send a JSON object.');
    }
    const checked = entry.validate(call.arguments);
    if (!checked.ok) {
      return errorResult(
        'invalid_arguments',
        'The arguments do not match the tool parameters. Fix them and call again.',
        {
          issues: checked.issues,
        },
      );
    }
    if (closed) return errorResult('tool_cancelled', 'The run has ended.');
    const { tool, server } = entry;
    const started = performance.now();
    const meta = () => ({ server: server.name, tool: tool.tool, durationMs: Math.round(performance.now() - started) });
    let connection: McpConnection;
    try {
      connection = await session(server, signal);
    } catch (error) {
      return failure(error as Error, server, meta(), signal);
    }
    const requestOptions = { timeout: server.timeoutMs, ...(signal ? { signal } : {}) };
    try {
      if (tool.builtin) {
        return await runBuiltin(
          connection.client,
          tool.builtin,
          checked.value as Record<string, unknown>,
          requestOptions,
          meta(),
        );
      }
      const result = await connection.client.callTool(
        { name: tool.tool, arguments: checked.value as Record<string, unknown> },
        undefined,
        requestOptions,
      );
      return mapCallResult(result as McpCallResult, meta());
    } catch (error) {
      // A session the server closed (a stdio program that exited, a dropped stream) is opened
      // again by the next call instead of failing every later one.
      if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed && sessions.get(server.name)) {
        const stale = sessions.get(server.name);
        sessions.delete(server.name);
        void stale?.then((c) => c.close()).catch(() => {});
      }
      return failure(connection.explain(error), server, meta(), signal, error);
    }
  };

  const failure = (
    explained: Error & { code?: string },
    server: CompiledMcpServer,
    meta: Record<string, unknown>,
    signal: AbortSignal | undefined,
    original?: unknown,
  ): ToolExecutionResult => {
    if (signal?.aborted) return errorResult('tool_cancelled', 'The call was cancelled.', {}, meta);
    const message = maskSecrets(explained.message, options.secrets);
    if (explained.code === 'mcp_timeout') {
      return errorResult('tool_timeout', `The MCP tool did not answer within ${server.timeoutMs} ms.`, {}, meta);
    }
    // The server answered with a JSON-RPC error (unknown tool, invalid params): the model can adapt.
    if (original instanceof McpError && original.code !== ErrorCode.ConnectionClosed) {
      return errorResult('mcp_error', message, { mcp_code: original.code }, meta);
    }
    const passed = ['missing_secret', 'mcp_stdio_unavailable'];
    const code =
      explained.code?.startsWith('egress_') || passed.includes(explained.code ?? '')
        ? explained.code!
        : 'mcp_unreachable';
    return errorResult(code, message, {}, meta);
  };

  return {
    definitions: () => definitions,
    async execute(call, callOptions) {
      try {
        return await execute(call, callOptions?.signal);
      } catch (error) {
        // Last line of defence: the interface promises results, never exceptions.
        const message = error instanceof Error ? error.message : String(error);
        return errorResult('tool_failed', `The MCP tool failed unexpectedly: ${maskSecrets(message, options.secrets)}`);
      }
    },
    async close() {
      closed = true;
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((p) => p.then((c) => c.close()).catch(() => {})));
    },
  };
}

function errorResult(
  code: string,
  message: string,
  details: Record<string, unknown> = {},
  meta?: Record<string, unknown>,
): ToolExecutionResult {
  return { output: { error: code, message, ...details }, isError: true, errorCode: code, ...(meta ? { meta } : {}) };
}
