import type { CompiledMcpServer } from '@agentry/config';
import { type AppError, errors, isAppError } from '@agentry/errors';
import type { EgressPolicy } from '@agentry/http-tools';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { type EgressTransportFetch, egressTransportFetch } from './egress-transport-fetch.ts';
import type { StdioServerDefinitions } from './stdio-servers.ts';

export interface McpConnectOptions {
  /** Tenant secrets for `{{secrets.X}}` in the server's URL and headers. */
  secrets: Record<string, string>;
  /** Egress rules (default: public addresses only). */
  egress?: EgressPolicy;
  /** How long the session may keep its streams open (a run's remaining time, or the discovery deadline). */
  lifetimeMs: number;
  signal?: AbortSignal;
  /** The platform operator's stdio servers (`MCP_STDIO_SERVERS`); stdio servers of a config connect only to these. */
  stdioServers?: StdioServerDefinitions;
}

/** One open MCP client session and the facts needed to explain its failures. */
export interface McpConnection {
  client: Client;
  server: CompiledMcpServer;
  /** Ends the session (Streamable HTTP: asks the server to drop it too); never throws. */
  close(): Promise<void>;
  /** Turns an error of this session into a stable-coded AppError. */
  explain(error: unknown): AppError;
}

const clientInfo = { name: 'agentry', version: '1.0.0' };
const minConnectMs = 5000;

/**
 * Connects to one MCP server and runs the MCP handshake within the server's timeout (at least
 * 5 s). Streamable HTTP and SSE send every request through the egress guard; stdio starts the
 * program the platform operator defined under the config's `server` name (a child process of this
 * one, ended by `close()`), and nothing else. Throws an AppError whose code says why: `egress_*`
 * (refused by the SSRF rules), `mcp_timeout`, `mcp_unreachable`, `missing_secret`,
 * `mcp_stdio_unavailable` (the operator has no such stdio server).
 *
 * @example
 * const connection = await connectMcpServer(server, { secrets, egress, lifetimeMs: 60_000 });
 * try { await connection.client.listTools(); } finally { await connection.close(); }
 */
export async function connectMcpServer(server: CompiledMcpServer, options: McpConnectOptions): Promise<McpConnection> {
  const { transport, guard } = openTransport(server, options);
  const client = new Client(clientInfo, { capabilities: {} });
  // The SDK reports background stream problems here; failures that matter surface on requests.
  client.onerror = () => {};
  const explain = (error: unknown) => explainError(server, error, guard?.refusal());
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
      await withDeadline(transport.terminateSession(), 1000).catch(() => {});
    }
    await client.close().catch(() => {});
  };
  // A tight tool timeout (0.5 s) should not fail the handshake (two requests, plus the SSE
  // endpoint event), so connecting gets at least a few seconds.
  const connectMs = Math.max(server.timeoutMs, minConnectMs);
  try {
    await withDeadline(
      client.connect(transport, { timeout: connectMs, ...(options.signal ? { signal: options.signal } : {}) }),
      connectMs,
    );
  } catch (error) {
    await close();
    throw explain(error);
  }
  return { client, server, close, explain };
}

function openTransport(
  server: CompiledMcpServer,
  options: McpConnectOptions,
): { transport: Transport; guard?: EgressTransportFetch } {
  if (server.transport === 'stdio') {
    const name = server.stdioServer ?? '';
    const definition = options.stdioServers?.get(name);
    if (!definition) {
      throw errors.of({
        code: 'mcp_stdio_unavailable',
        message: `MCP server \`${server.name}\` names stdio server \`${name}\`, which the platform operator has not defined`,
        category: 'user',
        retryable: false,
        details: { server: server.name, stdio_server: name },
      });
    }
    // No shell; the child gets the SDK's minimal environment (PATH, HOME, ...) plus the operator's
    // own variables, never this process's (database URLs, keys). Its stderr is not ours to log.
    const transport = new StdioClientTransport({
      command: definition.command,
      args: definition.args,
      env: definition.env,
      ...(definition.cwd ? { cwd: definition.cwd } : {}),
      stderr: 'ignore',
    });
    return { transport };
  }
  const { url, headers } = server.render(options.secrets);
  const secretValues = server.secretNames.flatMap((name) => options.secrets[name] ?? []);
  const guard = egressTransportFetch(options.egress, options.lifetimeMs, secretValues);
  const target = new URL(url);
  const transport =
    server.transport === 'sse'
      ? new SSEClientTransport(target, { fetch: guard.fetch, requestInit: { headers } })
      : new StreamableHTTPClientTransport(target, {
          fetch: guard.fetch,
          requestInit: { headers },
          // A dropped notification stream is not worth retrying inside a run: calls fail fast instead.
          reconnectionOptions: {
            maxRetries: 0,
            initialReconnectionDelay: 1000,
            maxReconnectionDelay: 1000,
            reconnectionDelayGrowFactor: 1,
          },
        });
  return { transport, guard };
}

class DeadlineError extends Error {}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

function explainError(server: CompiledMcpServer, error: unknown, refusal: AppError | undefined): AppError {
  const found = refusal ?? appErrorIn(error);
  if (found) return found;
  const timedOut =
    error instanceof DeadlineError || (error instanceof McpError && error.code === ErrorCode.RequestTimeout);
  if (timedOut) {
    return errors.upstream(
      'mcp_timeout',
      `MCP server \`${server.name}\` did not answer within ${server.timeoutMs} ms`,
      {
        retryable: true,
        details: { server: server.name, timeout_ms: server.timeoutMs },
        cause: error,
      },
    );
  }
  const detail = error instanceof Error ? error.message : String(error);
  return errors.upstream(
    'mcp_unreachable',
    `MCP server \`${server.name}\` could not be reached: ${detail.slice(0, 300)}`,
    {
      retryable: true,
      details: { server: server.name },
      cause: error,
    },
  );
}

/** An AppError (egress refusal, missing secret) anywhere in the cause chain: the SDK wraps some errors. */
function appErrorIn(error: unknown): AppError | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (isAppError(current)) return current;
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}
