import { compileAgent, loadAgentConfig } from '@agentry/config';
import { createEgressPolicy } from '@agentry/http-tools';
import { startTestMcpServer, type TestMcpServer, testMcpHandbookText, testMcpStdioCommand } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverMcpTools } from './discover.ts';
import { createMcpToolExecutor } from './mcp-tool-executor.ts';
import { parseStdioServers } from './stdio-servers.ts';

const loopback = createEgressPolicy({ allowlist: ['127.0.0.1'] });

function agentFor(servers: Array<Record<string, unknown>>) {
  const { config, hash } = loadAgentConfig({ basic_settings: { name: 'MCP test' }, mcp_servers: servers });
  return compileAgent(config, hash);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('operator-defined stdio servers', () => {
  const stdioServers = parseStdioServers({ 'test-desk': testMcpStdioCommand({ TEST_MCP_GREETING: 'hello' }) });

  it('discovers and calls a stdio server as a child process, ended when the session closes', async () => {
    const agent = agentFor([{ name: 'desk', transport: 'stdio', server: 'test-desk', timeout: 5 }]);
    const found = await discoverMcpTools(agent, { secrets: {}, stdioServers });
    if (!found.ok) throw new Error(JSON.stringify(found.issues));
    expect(found.discovered.tools.map((t) => t.name)).toContain('desk__environment');
    const mcp = createMcpToolExecutor({
      servers: agent.mcpServers,
      discovered: found.discovered,
      secrets: {},
      stdioServers,
      lifetimeMs: 30_000,
    });
    let pid = 0;
    // The platform's own settings are in this process's environment; the child must not see them.
    const saved = process.env.SECRETS_KEY;
    process.env.SECRETS_KEY = 'platform-secret';
    try {
      const call = (name: string, args: Record<string, unknown> = {}) =>
        mcp.execute({ type: 'tool_call', id: name, name, arguments: args });
      expect(await call('desk__echo', { text: 'over stdio' })).toMatchObject({ output: 'echo: over stdio' });
      const environment = await call('desk__environment');
      const facts = JSON.parse(String(environment.output));
      // The operator's variables reach the program; the platform's own never do.
      expect(facts).toMatchObject({ greeting: 'hello', leaked: [] });
      pid = facts.pid;
      expect(isAlive(pid)).toBe(true);
      // One process per session: a second call reuses it.
      expect(JSON.parse(String((await call('desk__environment')).output)).pid).toBe(pid);
    } finally {
      if (saved === undefined) delete process.env.SECRETS_KEY;
      else process.env.SECRETS_KEY = saved;
      await mcp.close();
    }
    await expect.poll(() => isAlive(pid)).toBe(false);
  });

  it('a name the operator has not defined is a clear issue at publish and an error result at run time', async () => {
    const agent = agentFor([{ name: 'desk', transport: 'stdio', server: 'nope' }]);
    const found = await discoverMcpTools(agent, { secrets: {}, stdioServers });
    expect(found).toMatchObject({ ok: false, issues: [{ path: '/mcp_servers/0', code: 'mcp_stdio_unavailable' }] });
    const discovered = {
      discovered_at: new Date().toISOString(),
      tools: [{ name: 'desk__echo', server: 'desk', tool: 'echo', description: 'x', input_schema: { type: 'object' } }],
      resources: [],
      prompts: [],
      warnings: [],
    };
    // A version published while the operator still defined the server, run after it was removed.
    const mcp = createMcpToolExecutor({ servers: agent.mcpServers, discovered, secrets: {}, lifetimeMs: 5000 });
    try {
      expect(await mcp.execute({ type: 'tool_call', id: '1', name: 'desk__echo', arguments: {} })).toMatchObject({
        isError: true,
        errorCode: 'mcp_stdio_unavailable',
        output: { message: expect.stringContaining('has not defined') },
      });
    } finally {
      await mcp.close();
    }
  });

  it('refuses bad operator definitions, naming the key', () => {
    expect(() => parseStdioServers({ desk: { command: '' } })).toThrow('"desk".command');
    expect(() => parseStdioServers({ desk: { command: 'node', shell: true } })).toThrow('unknown key shell');
    expect(() => parseStdioServers({ '../x': { command: 'node' } })).toThrow('"../x"');
    expect(() => parseStdioServers([])).toThrow('expected a JSON object');
    expect(parseStdioServers({ desk: { command: 'node' } }).get('desk')).toEqual({
      command: 'node',
      args: [],
      env: {},
    });
    expect(parseStdioServers({ desk: { command: 'node' } }).get('constructor')).toBeUndefined();
  });
});

describe('resources and prompts as tools', () => {
  let server: TestMcpServer;
  beforeAll(async () => {
    server = await startTestMcpServer();
  });
  afterAll(() => server?.close());

  it('are offered only when the config opts in, and list, read and fill through the session', async () => {
    const plain = await discoverMcpTools(agentFor([{ name: 'desk', url: server.url }]), {
      secrets: {},
      egress: loopback,
    });
    if (!plain.ok) throw new Error(JSON.stringify(plain.issues));
    expect(plain.discovered.tools.some((t) => t.builtin)).toBe(false);

    const agent = agentFor([
      { name: 'desk', url: server.url, tools: ['echo'], expose_resources: true, expose_prompts: true },
    ]);
    const found = await discoverMcpTools(agent, { secrets: {}, egress: loopback });
    if (!found.ok) throw new Error(JSON.stringify(found.issues));
    expect(found.discovered.tools.map((t) => t.name)).toEqual([
      'desk__echo',
      'desk__list_resources',
      'desk__read_resource',
      'desk__list_prompts',
      'desk__get_prompt',
    ]);
    const mcp = createMcpToolExecutor({
      servers: agent.mcpServers,
      discovered: found.discovered,
      secrets: {},
      egress: loopback,
      lifetimeMs: 30_000,
    });
    try {
      const call = (name: string, args: Record<string, unknown> = {}) =>
        mcp.execute({ type: 'tool_call', id: name, name, arguments: args });
      expect(await call('desk__list_resources')).toMatchObject({
        isError: false,
        output: { resources: [{ uri: 'test://handbook', name: 'Handbook', mime_type: 'text/markdown' }] },
      });
      expect(await call('desk__read_resource', { uri: 'test://handbook' })).toMatchObject({
        isError: false,
        output: testMcpHandbookText,
        meta: { server: 'desk', uri: 'test://handbook' },
      });
      expect(await call('desk__read_resource', { uri: 'test://nope' })).toMatchObject({
        isError: true,
        errorCode: 'mcp_error',
      });
      expect(await call('desk__read_resource', {})).toMatchObject({ errorCode: 'invalid_arguments' });
      expect(await call('desk__list_prompts')).toMatchObject({
        output: {
          prompts: [
            {
              name: 'summarise',
              description: 'Summarise a ticket',
              arguments: [{ name: 'ticket', required: true }],
            },
          ],
        },
      });
      expect(await call('desk__get_prompt', { name: 'summarise', arguments: { ticket: '42' } })).toMatchObject({
        isError: false,
        output: { messages: [{ role: 'user', content: 'Summarise ticket 42 in one sentence.' }] },
      });
    } finally {
      await mcp.close();
    }
  });

  it('a server tool with the name of a resource tool is left out with a warning', async () => {
    server.addTool({
      name: 'read_resource',
      description: 'Shadows the builtin',
      inputSchema: { type: 'object', properties: {} },
      run: () => ({ content: [{ type: 'text', text: 'shadow' }] }),
    });
    try {
      const found = await discoverMcpTools(agentFor([{ name: 'desk', url: server.url, expose_resources: true }]), {
        secrets: {},
        egress: loopback,
      });
      if (!found.ok) throw new Error(JSON.stringify(found.issues));
      const readers = found.discovered.tools.filter((t) => t.name === 'desk__read_resource');
      expect(readers).toEqual([expect.objectContaining({ builtin: 'read_resource' })]);
      expect(found.discovered.warnings).toMatchObject([{ code: 'mcp_tool_name_reserved', tools: ['read_resource'] }]);
    } finally {
      server.removeTool('read_resource');
    }
  });
});
