import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
// The low-level Server (not McpServer) on purpose: tests need raw JSON input schemas, including
// ones our platform must refuse, and a tool list that changes while sessions are open.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** One tool of the test server: a raw JSON input schema and what a call answers. */
export interface TestMcpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> | CallToolResult;
}

/** A tools/call the server received. */
export interface TestMcpCall {
  tool: string;
  arguments: Record<string, unknown>;
  /** Headers of the HTTP request that opened the session (e.g. Authorization from a secret). */
  headers: Record<string, string>;
}

export interface TestMcpServer {
  /** Streamable HTTP endpoint. */
  url: string;
  /** HTTP+SSE endpoint (the older transport). */
  sseUrl: string;
  calls: TestMcpCall[];
  /** Sessions opened so far, by transport. */
  sessionsOpened: { http: number; sse: number };
  /** Sessions currently open. */
  openSessions(): number;
  /** Adds (or replaces) a tool; listed by every later tools/list, in open sessions too. */
  addTool(tool: TestMcpTool): void;
  removeTool(name: string): void;
  toolNames(): string[];
  close(): Promise<void>;
}

// 1×1 transparent PNG.
const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/**
 * The default tools: `echo` (text), `add` (structured content), `fail` (`isError`), `image` (a PNG)
 * and `hang` (never answers until the client gives up).
 *
 * @example
 * const tools = defaultTestMcpTools();
 */
export function defaultTestMcpTools(): TestMcpTool[] {
  return [
    {
      name: 'echo',
      description: 'Repeats the text',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      run: (args) => ({ content: [{ type: 'text', text: `echo: ${String(args.text)}` }] }),
    },
    {
      name: 'add',
      description: 'Adds two numbers',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
        additionalProperties: false,
      },
      run: (args) => {
        const sum = Number(args.a) + Number(args.b);
        return { content: [{ type: 'text', text: String(sum) }], structuredContent: { sum } };
      },
    },
    {
      name: 'fail',
      description: 'Always fails',
      inputSchema: { type: 'object', properties: {} },
      run: () => ({ content: [{ type: 'text', text: 'the ticket system is read-only today' }], isError: true }),
    },
    {
      name: 'image',
      description: 'Returns a picture',
      inputSchema: { type: 'object', properties: {} },
      run: () => ({
        content: [
          { type: 'text', text: 'here is the chart' },
          { type: 'image', data: pixel, mimeType: 'image/png' },
        ],
      }),
    },
    {
      name: 'hang',
      description: 'Never answers',
      inputSchema: { type: 'object', properties: {} },
      run: (_args, signal) =>
        new Promise<CallToolResult>((resolve) => {
          const timer = setTimeout(() => resolve({ content: [{ type: 'text', text: 'late' }] }), 120_000);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve({ content: [{ type: 'text', text: 'cancelled' }] });
          });
        }),
    },
  ];
}

/** The test server's one resource and one prompt (listed, read and filled like a real server's). */
export const testMcpHandbook = { uri: 'test://handbook', name: 'Handbook', mimeType: 'text/markdown' };
export const testMcpHandbookText = '# Handbook\nRefunds within 30 days.';

/**
 * The MCP protocol side of the test server, transport-free (HTTP, SSE and stdio share it): tools
 * from the live map, the handbook resource (`resources/read`, unknown URIs are an error) and the
 * `summarise` prompt with a required `ticket` argument.
 *
 * @example
 * await createTestMcpProtocolServer(new Map(), () => {}).connect(new StdioServerTransport());
 */
export function createTestMcpProtocolServer(
  tools: ReadonlyMap<string, TestMcpTool>,
  onCall: (tool: string, args: Record<string, unknown>) => void,
): Server {
  const server = new Server(
    { name: 'agentry-test-mcp', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true }, resources: {}, prompts: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...tools.values()].map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = tools.get(request.params.name);
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    onCall(request.params.name, args);
    if (!tool) return { content: [{ type: 'text', text: `unknown tool ${request.params.name}` }], isError: true };
    return tool.run(args, extra.signal);
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [testMcpHandbook] }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    if (request.params.uri !== testMcpHandbook.uri) {
      throw new McpError(ErrorCode.InvalidParams, `no resource ${request.params.uri}`);
    }
    return { contents: [{ uri: testMcpHandbook.uri, mimeType: testMcpHandbook.mimeType, text: testMcpHandbookText }] };
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [
      {
        name: 'summarise',
        description: 'Summarise a ticket',
        arguments: [{ name: 'ticket', description: 'The ticket number', required: true }],
      },
    ],
  }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    const ticket = request.params.arguments?.ticket;
    if (request.params.name !== 'summarise' || !ticket) {
      throw new McpError(ErrorCode.InvalidParams, `no prompt ${request.params.name} with those arguments`);
    }
    return {
      description: 'Summarise a ticket',
      messages: [{ role: 'user', content: { type: 'text', text: `Summarise ticket ${ticket} in one sentence.` } }],
    };
  });
  return server;
}

/**
 * An MCP server on 127.0.0.1 speaking Streamable HTTP (`url`) and HTTP+SSE (`sseUrl`), built on the
 * official SDK, with a tool list tests can change between calls.
 *
 * @example
 * const mcp = await startTestMcpServer();
 * mcp.addTool({ name: 'export', description: 'new', inputSchema: { type: 'object' }, run: () => ({ content: [] }) });
 */
export async function startTestMcpServer(options: { tools?: TestMcpTool[] } = {}): Promise<TestMcpServer> {
  const tools = new Map((options.tools ?? defaultTestMcpTools()).map((t) => [t.name, t]));
  const calls: TestMcpCall[] = [];
  const sessionsOpened = { http: 0, sse: 0 };
  const httpSessions = new Map<string, StreamableHTTPServerTransport>();
  const sseSessions = new Map<string, SSEServerTransport>();

  const newServer = (headers: Record<string, string>) =>
    createTestMcpProtocolServer(tools, (tool, args) => calls.push({ tool, arguments: args, headers }));

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
    );
    if (url.pathname === '/mcp') {
      const id = req.headers['mcp-session-id'];
      const existing = typeof id === 'string' ? httpSessions.get(id) : undefined;
      if (existing) return existing.handleRequest(req, res);
      if (req.method !== 'POST' || id !== undefined) {
        res.writeHead(id === undefined ? 400 : 404).end();
        return;
      }
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          sessionsOpened.http += 1;
          httpSessions.set(sessionId, transport);
        },
        onsessionclosed: (sessionId) => {
          httpSessions.delete(sessionId);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) httpSessions.delete(transport.sessionId);
      };
      await newServer(headers).connect(transport);
      return transport.handleRequest(req, res);
    }
    if (url.pathname === '/sse' && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res);
      sseSessions.set(transport.sessionId, transport);
      sessionsOpened.sse += 1;
      res.on('close', () => sseSessions.delete(transport.sessionId));
      await newServer(headers).connect(transport);
      return;
    }
    if (url.pathname === '/messages' && req.method === 'POST') {
      const transport = sseSessions.get(url.searchParams.get('sessionId') ?? '');
      if (!transport) {
        res.writeHead(404).end();
        return;
      }
      return transport.handlePostMessage(req, res);
    }
    res.writeHead(404).end();
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/mcp`,
    sseUrl: `${base}/sse`,
    calls,
    sessionsOpened,
    openSessions: () => httpSessions.size + sseSessions.size,
    addTool: (tool) => {
      tools.set(tool.name, tool);
    },
    removeTool: (name) => {
      tools.delete(name);
    },
    toolNames: () => [...tools.keys()],
    close: async () => {
      await Promise.all([...httpSessions.values(), ...sseSessions.values()].map((t) => t.close().catch(() => {})));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
