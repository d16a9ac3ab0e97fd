import { compileAgent, loadAgentConfig } from '@agentry/config';
import { createEgressPolicy, strictEgressPolicy } from '@agentry/http-tools';
import { startTestMcpServer, type TestMcpServer } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareDiscovered } from './compare-discovered.ts';
import { discoverMcpTools } from './discover.ts';
import { createMcpToolExecutor } from './mcp-tool-executor.ts';

const loopback = createEgressPolicy({ allowlist: ['127.0.0.1'] });

function agentFor(servers: Array<Record<string, unknown>>) {
  const { config, hash } = loadAgentConfig({ basic_settings: { name: 'MCP test' }, mcp_servers: servers });
  return compileAgent(config, hash);
}

describe.each(['http', 'sse'] as const)('MCP over %s against the test server', (transport) => {
  let server: TestMcpServer;
  beforeAll(async () => {
    server = await startTestMcpServer();
  });
  afterAll(() => server?.close());
  const url = () => (transport === 'http' ? server.url : server.sseUrl);

  it('discovers tools, resources and prompts, and calls each kind of tool in one session', async () => {
    const agent = agentFor([
      { name: 'desk', transport, url: url(), timeout: 1, headers: { Authorization: 'Bearer {{secrets.DESK}}' } },
    ]);
    const found = await discoverMcpTools(agent, { secrets: { DESK: 's3cret' }, egress: loopback });
    if (!found.ok) throw new Error(JSON.stringify(found.issues));
    expect(found.discovered.tools.map((t) => t.name).sort()).toEqual([
      'desk__add',
      'desk__echo',
      'desk__fail',
      'desk__hang',
      'desk__image',
    ]);
    // `$schema` is dropped; the rest is the server's schema.
    expect(found.discovered.tools.find((t) => t.name === 'desk__add')?.input_schema).not.toHaveProperty('$schema');
    expect(found.discovered.resources).toEqual([
      { server: 'desk', uri: 'test://handbook', name: 'Handbook', mime_type: 'text/markdown' },
    ]);
    expect(found.discovered.prompts).toEqual([
      { server: 'desk', name: 'summarise', description: 'Summarise a ticket' },
    ]);

    const opened = server.sessionsOpened[transport];
    const mcp = createMcpToolExecutor({
      servers: agent.mcpServers,
      discovered: found.discovered,
      secrets: { DESK: 's3cret' },
      egress: loopback,
      lifetimeMs: 30_000,
    });
    try {
      const call = (name: string, args: Record<string, unknown> = {}) =>
        mcp.execute({ type: 'tool_call', id: name, name, arguments: args });
      expect(await call('desk__echo', { text: 'hi' })).toMatchObject({ output: 'echo: hi', isError: false });
      expect(await call('desk__add', { a: 2, b: 3 })).toMatchObject({
        output: { text: '5', structured_content: { sum: 5 } },
        isError: false,
      });
      expect(await call('desk__fail')).toMatchObject({
        isError: true,
        errorCode: 'mcp_tool_error',
        output: { message: 'the ticket system is read-only today' },
      });
      const image = await call('desk__image');
      expect(image.output).toMatch(/^here is the chart\n\[image: image\/png, \d+ bytes/);
      expect(image.meta?.media).toEqual([{ type: 'image', mime_type: 'image/png', bytes: expect.any(Number) }]);
      const started = Date.now();
      expect(await call('desk__hang')).toMatchObject({ isError: true, errorCode: 'tool_timeout' });
      expect(Date.now() - started).toBeLessThan(5000);
      // The session survives a timed-out call.
      expect(await call('desk__echo', { text: 'again' })).toMatchObject({ output: 'echo: again' });
      expect(await call('desk__echo', { text: 7 })).toMatchObject({ errorCode: 'invalid_arguments' });
      expect(server.sessionsOpened[transport]).toBe(opened + 1);
      expect(server.calls.at(-1)?.headers.authorization).toBe('Bearer s3cret');
    } finally {
      await mcp.close();
    }
    await expect.poll(() => server.openSessions()).toBe(0);
  });

  it('refuses a loopback URL without an allowlist, before sending anything', async () => {
    const agent = agentFor([{ name: 'desk', transport, url: url() }]);
    const before = server.sessionsOpened[transport];
    const found = await discoverMcpTools(agent, { secrets: {}, egress: strictEgressPolicy });
    expect(found).toMatchObject({ ok: false, issues: [{ path: '/mcp_servers/0', code: 'egress_forbidden_address' }] });
    expect(server.sessionsOpened[transport]).toBe(before);
  });
});

describe('publish-time rules', () => {
  let server: TestMcpServer;
  beforeAll(async () => {
    server = await startTestMcpServer();
    server.addTool({
      name: 'lookahead',
      description: 'Unsafe pattern',
      inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '^(?=a)' } } },
      run: () => ({ content: [] }),
    });
  });
  afterAll(() => server?.close());

  it('skips a tool with an unsafe schema with a warning, but refuses it when allow-listed', async () => {
    const open = await discoverMcpTools(agentFor([{ name: 'desk', url: server.url }]), {
      secrets: {},
      egress: loopback,
    });
    if (!open.ok) throw new Error(JSON.stringify(open.issues));
    expect(open.discovered.tools.map((t) => t.tool)).not.toContain('lookahead');
    expect(open.discovered.warnings).toMatchObject([{ code: 'mcp_tool_schema_refused', tools: ['lookahead'] }]);

    const named = await discoverMcpTools(agentFor([{ name: 'desk', url: server.url, tools: ['echo', 'lookahead'] }]), {
      secrets: {},
      egress: loopback,
    });
    expect(named).toMatchObject({
      ok: false,
      issues: [{ path: '/mcp_servers/0/tools/1', code: 'mcp_tool_schema_refused' }],
    });
  });

  it('reports an unreachable server and an allow-listed tool the server lacks', async () => {
    const down = await discoverMcpTools(agentFor([{ name: 'desk', url: 'http://127.0.0.1:9/mcp', timeout: 2 }]), {
      secrets: {},
      egress: loopback,
    });
    expect(down).toMatchObject({ ok: false, issues: [{ path: '/mcp_servers/0', code: 'mcp_unreachable' }] });
    const missing = await discoverMcpTools(agentFor([{ name: 'desk', url: server.url, tools: ['nope'] }]), {
      secrets: {},
      egress: loopback,
    });
    expect(missing).toMatchObject({
      ok: false,
      issues: [{ path: '/mcp_servers/0/tools/0', code: 'mcp_tool_not_found' }],
    });
  });

  it('a changed tool list shows as warnings, and the executor offers only the cached tools', async () => {
    const agent = agentFor([{ name: 'desk', url: server.url }]);
    const first = await discoverMcpTools(agent, { secrets: {}, egress: loopback });
    if (!first.ok) throw new Error('discovery failed');
    server.addTool({
      name: 'export',
      description: 'Exports everything',
      inputSchema: { type: 'object', properties: {} },
      run: () => ({ content: [{ type: 'text', text: 'exported' }] }),
    });
    server.removeTool('fail');
    const second = await discoverMcpTools(agent, { secrets: {}, egress: loopback });
    if (!second.ok) throw new Error('discovery failed');
    expect(compareDiscovered(first.discovered, second.discovered)).toMatchObject([
      { code: 'mcp_tools_added', server: 'desk', tools: ['export'] },
      { code: 'mcp_tools_removed', server: 'desk', tools: ['fail'] },
    ]);
    const mcp = createMcpToolExecutor({
      servers: agent.mcpServers,
      discovered: first.discovered,
      secrets: {},
      egress: loopback,
      lifetimeMs: 10_000,
    });
    try {
      expect(mcp.definitions().map((d) => d.name)).not.toContain('desk__export');
      expect(await mcp.execute({ type: 'tool_call', id: '1', name: 'desk__export', arguments: {} })).toMatchObject({
        errorCode: 'unknown_tool',
      });
    } finally {
      await mcp.close();
    }
  });
});

describe('secrets and redirects', () => {
  it('never follows a redirect that would carry a secret of the server URL to another origin', async () => {
    const { createServer } = await import('node:http');
    const received: string[] = [];
    const other = createServer((req, res) => {
      received.push(req.url ?? '');
      res.writeHead(404).end();
    });
    // The first origin echoes the query (and with it the secret) into a redirect to the second.
    const first = createServer((req, res) => {
      const query = new URL(req.url ?? '/', 'http://x').search;
      res.writeHead(307, { location: `http://127.0.0.1:${portOf(other)}/mcp${query}` }).end();
    });
    await Promise.all([listen(other), listen(first)]);
    try {
      const agent = agentFor([
        {
          name: 'desk',
          transport: 'http',
          url: `http://127.0.0.1:${portOf(first)}/mcp?key={{secrets.DESK}}`,
          timeout: 1,
        },
      ]);
      const found = await discoverMcpTools(agent, { secrets: { DESK: 'redirect-s3cret' }, egress: loopback });
      expect(found.ok).toBe(false);
      expect(JSON.stringify(found)).toContain('egress_redirect_refused');
      expect(JSON.stringify(found)).not.toContain('redirect-s3cret');
      expect(received).toEqual([]);
    } finally {
      first.close();
      other.close();
    }
  });
});

function listen(server: import('node:http').Server) {
  return new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
}

function portOf(server: import('node:http').Server) {
  return (server.address() as import('node:net').AddressInfo).port;
}
