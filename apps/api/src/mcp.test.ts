import { startTestMcpServer, type TestMcpServer, testMcpHandbookText, testMcpStdioCommand } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, type Provider, startHarness } from './test-support/harness.ts';

/** Tool names the fake model was offered on one request, for either wire format. */
function offeredTools(request: { protocol: string; body: any }): string[] {
  const tools: any[] = request.body.tools ?? [];
  return tools.map((t) => (request.protocol === 'openai' ? t.function.name : t.name)).sort();
}

function agentConfig(endpointUrl: string, server: Record<string, unknown>) {
  return {
    basic_settings: { name: 'Desk agent' },
    action_books: [{ condition: 'A ticket question', action: 'Use the desk tools', tools: ['desk__echo'] }],
    tools: [
      {
        name: 'save_note',
        description: 'Save a note',
        parameters: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] },
        endpoint: { url: `${endpointUrl}/notes`, method: 'POST', body: { note: '{{note}}' } },
      },
    ],
    mcp_servers: [{ name: 'desk', ...server }],
  };
}

async function chat(h: Harness, key: string, agentId: string, content: string) {
  const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agentId } });
  expect(conv.status).toBe(201);
  const sent = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, { key, body: { content } });
  expect(sent.status).toBe(200);
  return sent.json;
}

describe.each(['openai', 'anthropic'] as Provider[])('MCP tools next to HTTP tools (%s wire format)', (provider) => {
  let h: Harness;
  let mcp: TestMcpServer;
  let key: string;
  beforeAll(async () => {
    h = await startHarness('embedded', provider);
    mcp = await startTestMcpServer();
    key = await createTenant(h);
    expect(
      (await call(h, 'PUT', '/v1/secrets/DESK_TOKEN', { key, body: { value: 'desk-secret' } })).status,
    ).toBeLessThan(300);
  }, 60_000);
  afterAll(async () => {
    await mcp?.close();
    await h?.close();
  });

  it.each(['http', 'sse'] as const)(
    'discovers at publish and calls an MCP tool and an HTTP tool in one run (%s transport)',
    async (transport) => {
      const config = agentConfig(h.endpoint.url, {
        transport,
        url: transport === 'http' ? mcp.url : mcp.sseUrl,
        headers: { Authorization: 'Bearer {{secrets.DESK_TOKEN}}' },
      });
      const created = await call(h, 'POST', '/v1/agents', { key, body: { config } });
      expect(created.status).toBe(201);
      const version = await call(h, 'GET', `/v1/agents/${created.json.id}/versions/1`, { key });
      expect(version.json.discovered_tools.tools.map((t: { name: string }) => t.name).sort()).toEqual([
        'desk__add',
        'desk__echo',
        'desk__fail',
        'desk__hang',
        'desk__image',
      ]);
      expect(version.json.warnings).toEqual([]);

      const modelCalls = h.llm.requests.length;
      const notes = h.endpoint.requests.length;
      h.llm.enqueue(
        {
          type: 'reply',
          toolCalls: [
            { id: 'c1', name: 'desk__echo', arguments: { text: 'ticket 42' } },
            { id: 'c2', name: 'save_note', arguments: { note: 'checked 42' } },
          ],
        },
        { type: 'reply', text: 'Ticket 42 is checked.' },
      );
      const run = await chat(h, key, created.json.id, 'Check ticket 42');
      expect(run).toMatchObject({
        status: 'completed',
        reply: 'Ticket 42 is checked.',
        tool_calls: [
          { name: 'desk__echo', output: 'echo: ticket 42', is_error: false },
          { name: 'save_note', is_error: false },
        ],
      });
      expect(offeredTools(h.llm.requests[modelCalls]!)).toEqual([
        'desk__add',
        'desk__echo',
        'desk__fail',
        'desk__hang',
        'desk__image',
        'save_note',
      ]);
      expect(h.endpoint.requests.slice(notes).map((r) => r.json)).toEqual([{ note: 'checked 42' }]);
      const echo = mcp.calls.findLast((c) => c.tool === 'echo');
      expect(echo).toMatchObject({
        arguments: { text: 'ticket 42' },
        headers: { authorization: 'Bearer desk-secret' },
      });
      // The run's session ended with the run.
      await expect.poll(() => mcp.openSessions()).toBe(0);
    },
  );

  it('lists and reads resources and fills prompts as tools, when the config opts in', async () => {
    const config = agentConfig(h.endpoint.url, {
      url: mcp.url,
      tools: ['echo'],
      expose_resources: true,
      expose_prompts: true,
      headers: { Authorization: 'Bearer {{secrets.DESK_TOKEN}}' },
    });
    config.action_books[0]!.tools = ['desk__read_resource'];
    const created = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    expect(created.status).toBe(201);
    const modelCalls = h.llm.requests.length;
    h.llm.enqueue(
      {
        type: 'reply',
        toolCalls: [
          { id: 'r1', name: 'desk__list_resources', arguments: {} },
          { id: 'r2', name: 'desk__read_resource', arguments: { uri: 'test://handbook' } },
          { id: 'r3', name: 'desk__list_prompts', arguments: {} },
          { id: 'r4', name: 'desk__get_prompt', arguments: { name: 'summarise', arguments: { ticket: '7' } } },
        ],
      },
      { type: 'reply', text: 'Refunds are accepted within 30 days.' },
    );
    const run = await chat(h, key, created.json.id, 'What is the refund rule?');
    expect(offeredTools(h.llm.requests[modelCalls]!)).toEqual([
      'desk__echo',
      'desk__get_prompt',
      'desk__list_prompts',
      'desk__list_resources',
      'desk__read_resource',
      'save_note',
    ]);
    expect(run).toMatchObject({
      status: 'completed',
      tool_calls: [
        {
          name: 'desk__list_resources',
          is_error: false,
          output: { resources: [{ uri: 'test://handbook', name: 'Handbook' }] },
        },
        { name: 'desk__read_resource', is_error: false, output: testMcpHandbookText },
        { name: 'desk__list_prompts', is_error: false, output: { prompts: [{ name: 'summarise' }] } },
        {
          name: 'desk__get_prompt',
          is_error: false,
          output: { messages: [{ role: 'user', content: 'Summarise ticket 7 in one sentence.' }] },
        },
      ],
    });
    // The model read the resource on its next call.
    expect(JSON.stringify(h.llm.requests.at(-1)!.body)).toContain('Refunds within 30 days');
    await expect.poll(() => mcp.openSessions()).toBe(0);
  });
});

describe('MCP servers that misbehave', () => {
  let h: Harness;
  let mcp: TestMcpServer;
  let key: string;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai');
    mcp = await startTestMcpServer();
    key = await createTenant(h);
  }, 60_000);
  afterAll(async () => {
    await mcp?.close();
    await h?.close();
  });

  it('a server that is down at publish is a 422 naming the server, and nothing is stored', async () => {
    const config = agentConfig(h.endpoint.url, { url: 'http://127.0.0.1:9/mcp', timeout: 2 });
    const created = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    expect(created.status).toBe(422);
    expect(created.json).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: '/mcp_servers/0', code: 'mcp_unreachable' }],
    });
    expect((await call(h, 'GET', '/v1/agents', { key })).json.data).toEqual([]);
  });

  it('a slow tool times out and a failing tool reports its error, both as results the model reads', async () => {
    const created = await call(h, 'POST', '/v1/agents', {
      key,
      body: { config: agentConfig(h.endpoint.url, { url: mcp.url, timeout: 0.5 }) },
    });
    expect(created.status).toBe(201);
    h.llm.enqueue(
      {
        type: 'reply',
        toolCalls: [
          { id: 'h1', name: 'desk__hang', arguments: {} },
          { id: 'f1', name: 'desk__fail', arguments: {} },
          { id: 'i1', name: 'desk__image', arguments: {} },
        ],
      },
      { type: 'reply', text: 'The desk is having trouble.' },
    );
    const started = Date.now();
    const run = await chat(h, key, created.json.id, 'Anything new?');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(run.status).toBe('completed');
    const [hang, fail, image] = run.tool_calls;
    expect(hang).toMatchObject({ is_error: true, output: { error: 'tool_timeout' } });
    expect(fail).toMatchObject({
      is_error: true,
      output: { error: 'mcp_tool_error', message: 'the ticket system is read-only today' },
    });
    expect(image.is_error).toBe(false);
    expect(image.output).toMatch(/\[image: image\/png, \d+ bytes/);
    // What the model saw on its next call.
    const lastRequest = JSON.stringify(h.llm.requests.at(-1)!.body);
    expect(lastRequest).toContain('tool_timeout');
    expect(lastRequest).toContain('read-only today');
  });

  it('a changed tool list is a warning on re-check, and runs keep offering the published tools', async () => {
    const created = await call(h, 'POST', '/v1/agents', {
      key,
      body: { config: agentConfig(h.endpoint.url, { url: mcp.url }) },
    });
    expect(created.status).toBe(201);
    const path = `/v1/agents/${created.json.id}/versions/1`;
    expect((await call(h, 'POST', `${path}/mcp-check`, { key })).json.warnings).toEqual([]);

    mcp.addTool({
      name: 'export_all',
      description: 'Exports every ticket',
      inputSchema: { type: 'object', properties: {} },
      run: () => ({ content: [{ type: 'text', text: 'exported' }] }),
    });
    try {
      const check = await call(h, 'POST', `${path}/mcp-check`, { key });
      expect(check.status).toBe(200);
      expect(check.json.warnings).toMatchObject([{ code: 'mcp_tools_added', server: 'desk', tools: ['export_all'] }]);
      expect(check.json.current_tools.map((t: { name: string }) => t.name)).toContain('desk__export_all');
      expect(check.json.discovered_tools.tools.map((t: { name: string }) => t.name)).not.toContain('desk__export_all');
      // Stored with the version: the dashboard shows the change until the next re-check.
      const version = await call(h, 'GET', path, { key });
      expect(version.json.warnings).toMatchObject([{ code: 'mcp_tools_added', tools: ['export_all'] }]);
      expect(version.json.last_check).toMatchObject({
        checked_at: expect.any(String),
        warnings: [{ code: 'mcp_tools_added', server: 'desk' }],
      });
      expect(version.json.discovered_tools.tools.map((t: { name: string }) => t.name)).not.toContain(
        'desk__export_all',
      );

      const modelCalls = h.llm.requests.length;
      h.llm.enqueue(
        { type: 'reply', toolCalls: [{ id: 'x1', name: 'desk__export_all', arguments: {} }] },
        { type: 'reply', text: 'I cannot export.' },
      );
      const run = await chat(h, key, created.json.id, 'Export everything');
      expect(offeredTools(h.llm.requests[modelCalls]!)).not.toContain('desk__export_all');
      expect(run.tool_calls[0]).toMatchObject({ is_error: true, output: { error: 'unknown_tool' } });
      expect(mcp.calls.some((c) => c.tool === 'export_all')).toBe(false);
    } finally {
      mcp.removeTool('export_all');
    }
    // Once the server is back to its published list, a re-check clears the stored warning.
    expect((await call(h, 'POST', `${path}/mcp-check`, { key })).json.warnings).toEqual([]);
    const version = await call(h, 'GET', path, { key });
    expect(version.json).toMatchObject({ warnings: [], last_check: { warnings: [] } });
  });

  it('refuses a stdio server when the operator has not enabled stdio, and never takes a command', async () => {
    const agentsBefore = (await call(h, 'GET', '/v1/agents', { key })).json.data.length;
    const stdio = {
      ...agentConfig(h.endpoint.url, {}),
      mcp_servers: [{ name: 'desk', transport: 'stdio', server: 'x' }],
    };
    const refused = await call(h, 'POST', '/v1/agents', { key, body: { config: stdio } });
    expect(refused.status).toBe(422);
    expect(refused.json.errors).toEqual([
      expect.objectContaining({
        path: '/mcp_servers/0/transport',
        code: 'stdio_not_enabled',
        hint: expect.any(String),
      }),
    ]);
    // The validate endpoint gives the same answer the upload gives.
    const validated = await call(h, 'POST', '/v1/agents/validate', { key, body: { config: stdio } });
    expect(validated.status).toBe(422);
    expect(validated.json.errors).toEqual(refused.json.errors);
    const command = {
      ...stdio,
      mcp_servers: [{ name: 'desk', transport: 'stdio', server: 'x', command: 'sh', args: ['-c', 'id'] }],
    };
    const withCommand = await call(h, 'POST', '/v1/agents', { key, body: { config: command } });
    expect(withCommand.status).toBe(422);
    expect(withCommand.json.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: '/mcp_servers/0/command', code: 'unknown_key' }),
        expect.objectContaining({ path: '/mcp_servers/0/args', code: 'unknown_key' }),
      ]),
    );
    // Nothing was stored.
    expect((await call(h, 'GET', '/v1/agents', { key })).json.data).toHaveLength(agentsBefore);
  });
});

describe('stdio MCP servers the operator defined', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    const servers = { 'test-desk': testMcpStdioCommand({ TEST_MCP_GREETING: 'from the operator' }) };
    h = await startHarness('embedded', 'anthropic', { env: { MCP_STDIO_SERVERS: JSON.stringify(servers) } });
    key = await createTenant(h);
  }, 60_000);
  afterAll(() => h?.close());

  const stdioConfig = (server: string) => ({
    ...agentConfig('https://notes.example.com', {}),
    mcp_servers: [{ name: 'desk', transport: 'stdio', server, tools: ['echo', 'environment'] }],
  });

  it('discovers at publish and calls the tools of a child process started for the run', async () => {
    const created = await call(h, 'POST', '/v1/agents', { key, body: { config: stdioConfig('test-desk') } });
    expect(created.status).toBe(201);
    const version = await call(h, 'GET', `/v1/agents/${created.json.id}/versions/1`, { key });
    expect(version.json.discovered_tools.tools.map((t: { name: string }) => t.name)).toEqual([
      'desk__echo',
      'desk__environment',
    ]);
    h.llm.enqueue(
      {
        type: 'reply',
        toolCalls: [
          { id: 'e1', name: 'desk__echo', arguments: { text: 'over stdio' } },
          { id: 'e2', name: 'desk__environment', arguments: {} },
        ],
      },
      { type: 'reply', text: 'Done.' },
    );
    const run = await chat(h, key, created.json.id, 'Check the desk');
    expect(run.tool_calls[0]).toMatchObject({ name: 'desk__echo', output: 'echo: over stdio', is_error: false });
    const facts = JSON.parse(run.tool_calls[1].output);
    expect(facts).toMatchObject({ greeting: 'from the operator', leaked: [] });
    // The run's process ended with the run.
    await expect
      .poll(() => {
        try {
          process.kill(facts.pid, 0);
          return true;
        } catch {
          return false;
        }
      })
      .toBe(false);
  });

  it('refuses at upload a stdio server the operator has not defined, naming the ones it has', async () => {
    const created = await call(h, 'POST', '/v1/agents', { key, body: { config: stdioConfig('test-dsk') } });
    expect(created.status).toBe(422);
    expect(created.json.errors).toEqual([
      expect.objectContaining({
        path: '/mcp_servers/0/server',
        code: 'unknown_stdio_server',
        hint: expect.stringContaining('test-desk'),
      }),
    ]);
  });
});

describe('MCP URL at a private address without an allowlist', () => {
  let h: Harness;
  let mcp: TestMcpServer;
  let key: string;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai', { env: { EGRESS_ALLOWLIST: '' } });
    mcp = await startTestMcpServer();
    key = await createTenant(h);
  }, 60_000);
  afterAll(async () => {
    await mcp?.close();
    await h?.close();
  });

  it.each([
    ['loopback', () => mcp.url],
    ['private network', () => 'http://10.1.2.3/mcp'],
    ['cloud metadata', () => 'http://169.254.169.254/mcp'],
  ])('refuses a %s URL at publish, before anything is sent', async (_name, url) => {
    const sessions = mcp.sessionsOpened.http;
    const created = await call(h, 'POST', '/v1/agents', {
      key,
      body: { config: agentConfig('https://notes.example.com', { url: url() }) },
    });
    expect(created.status).toBe(422);
    expect(created.json.errors).toMatchObject([{ path: '/mcp_servers/0', code: 'egress_forbidden_address' }]);
    expect(mcp.sessionsOpened.http).toBe(sessions);
  });
});
