import { startTestMcpServer, type TestMcpServer } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, readSse, startHarness } from './test-support/harness.ts';

function config(endpointUrl: string) {
  return {
    basic_settings: { name: 'Front desk' },
    action_books: [{ condition: 'An order question', action: 'Ask the research skill', tools: ['skill__research'] }],
    skills: [
      {
        name: 'research',
        description: 'Looks orders up and explains their status',
        basic_settings: { name: 'Order researcher', instructions: 'Always look the order up first.' },
        tools: [
          {
            name: 'lookup_order',
            description: 'Find an order',
            parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
            endpoint: { url: `${endpointUrl}/orders/{{id}}` },
          },
        ],
        limits: { max_steps: 4 },
      },
    ],
  };
}

describe('skills: a sub-agent run nested in the parent run', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai');
    key = await createTenant(h);
  }, 60_000);
  afterAll(() => h?.close());

  it('runs the skill on the same model, nests its events, and rolls its trace and usage up', async () => {
    const created = await call(h, 'POST', '/v1/agents', { key, body: { config: config(h.endpoint.url) } });
    expect(created.status).toBe(201);
    const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: created.json.id } });
    const modelCalls = h.llm.requests.length;
    h.llm.enqueue(
      // Parent: hands the question to the skill.
      {
        type: 'reply',
        toolCalls: [{ id: 'p1', name: 'skill__research', arguments: { input: 'Where is order 7?' } }],
        usage: { input: 100, output: 10 },
      },
      // Skill: looks the order up, then answers.
      {
        type: 'reply',
        toolCalls: [{ id: 's1', name: 'lookup_order', arguments: { id: '7' } }],
        usage: { input: 30, output: 5 },
      },
      { type: 'reply', text: 'Order 7 has shipped.', usage: { input: 20, output: 6 } },
      // Parent: answers with what the skill found.
      { type: 'reply', text: 'Your order 7 has shipped.', usage: { input: 120, output: 8 } },
    );
    const sent = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, {
      key,
      body: { content: 'Where is my order 7?' },
    });
    expect(sent.status).toBe(200);
    expect(sent.json).toMatchObject({
      status: 'completed',
      reply: 'Your order 7 has shipped.',
      tool_calls: [{ name: 'skill__research', output: 'Order 7 has shipped.', is_error: false }],
      // Parent and skill together: 100+30+20+120 in, 10+5+6+8 out; one parent call + one skill call.
      meta: { input_tokens: 270, output_tokens: 29, tool_call_count: 2, steps: 2 },
    });

    // The skill saw its own prompt and only its own tools; the parent saw the skill as a tool.
    const [parentFirst, skillFirst] = h.llm.requests.slice(modelCalls);
    expect(parentFirst!.body.tools.map((t: any) => t.function.name)).toEqual(['skill__research']);
    expect(skillFirst!.body.tools.map((t: any) => t.function.name)).toEqual(['lookup_order']);
    expect(JSON.stringify(skillFirst!.body.messages)).toContain('Order researcher');
    expect(JSON.stringify(skillFirst!.body.messages)).toContain('Where is order 7?');
    expect(h.endpoint.requests.at(-1)).toMatchObject({ method: 'GET', path: '/orders/7' });

    // The skill's trace is stored with the parent's step, on the tool call.
    const run = await call(h, 'GET', `/v1/runs/${sent.json.id}`, { key });
    const skillCall = run.json.steps[0].toolCalls[0];
    expect(skillCall).toMatchObject({
      name: 'skill__research',
      skill: {
        skill: 'research',
        status: 'completed',
        toolCallCount: 1,
        usage: { inputTokens: 50, outputTokens: 11 },
      },
    });
    expect(skillCall.skill.steps).toHaveLength(2);
    expect(skillCall.skill.steps[0].toolCalls).toMatchObject([{ name: 'lookup_order', isError: false }]);

    // Its events are nested in the parent's stream.
    const stream = await fetch(`${h.platform.url}/v1/runs/${sent.json.id}/events`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    });
    const events = await readSse(stream);
    const nested = events.filter((e) => e.data.type === 'skill-event');
    expect(nested.length).toBeGreaterThan(3);
    expect(nested.every((e) => e.data.skill === 'research' && e.data.toolCallId === 'p1')).toBe(true);
    expect(nested.map((e) => e.data.event.type)).toEqual(
      expect.arrayContaining(['run-started', 'tool-call', 'tool-result', 'run-finished']),
    );
    const outer = events.map((e) => e.data.type);
    expect(outer.indexOf('tool-call')).toBeLessThan(outer.indexOf('skill-event'));
    expect(outer.lastIndexOf('skill-event')).toBeLessThan(outer.lastIndexOf('tool-result'));
  });

  it("a skill may use no more than the parent's token budget", async () => {
    const small = config(h.endpoint.url);
    Object.assign(small, { limits: { max_tokens: 1000 } });
    const created = await call(h, 'POST', '/v1/agents', { key, body: { config: small } });
    const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: created.json.id } });
    h.llm.enqueue(
      {
        type: 'reply',
        toolCalls: [{ id: 'p1', name: 'skill__research', arguments: { input: 'Order 8?' } }],
        usage: { input: 400, output: 10 },
      },
      // The skill's first call alone goes past what the parent has left (590 tokens).
      {
        type: 'reply',
        toolCalls: [{ id: 's1', name: 'lookup_order', arguments: { id: '8' } }],
        usage: { input: 700, output: 5 },
      },
      { type: 'reply', text: 'I could not finish the lookup.', usage: { input: 10, output: 5 } },
    );
    const sent = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, {
      key,
      body: { content: 'Order 8?' },
    });
    expect(sent.json.tool_calls[0]).toMatchObject({
      name: 'skill__research',
      is_error: true,
      output: { error: 'skill_token_budget_exceeded' },
    });
    expect(sent.json.meta.input_tokens).toBe(400 + 700 + 10);
  });
});

/** A parent with the desk MCP server; `research` uses the desk and calls `orders`, which has an HTTP tool. */
function nestedConfig(endpointUrl: string, mcpUrl: string) {
  return {
    basic_settings: { name: 'Front desk' },
    action_books: [],
    mcp_servers: [{ name: 'desk', url: mcpUrl, tools: ['echo', 'sessions'] }],
    skills: [
      {
        name: 'research',
        description: 'Researches a customer question',
        basic_settings: { name: 'Researcher' },
        mcp_servers: ['desk'],
        skills: ['orders'],
        action_books: [
          { condition: 'An order', action: 'Ask the orders skill', tools: ['skill__orders', 'desk__echo'] },
        ],
      },
      {
        name: 'orders',
        description: 'Looks orders up',
        basic_settings: { name: 'Order clerk' },
        tools: [
          {
            name: 'lookup_order',
            description: 'Find an order',
            parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
            endpoint: { url: `${endpointUrl}/orders/{{id}}` },
          },
        ],
      },
    ],
  };
}

describe('skills using MCP tools and other skills', () => {
  let h: Harness;
  let key: string;
  let mcp: TestMcpServer;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai');
    key = await createTenant(h);
    mcp = await startTestMcpServer();
    // Reports how many MCP sessions are open on the server right now.
    mcp.addTool({
      name: 'sessions',
      description: 'Open sessions',
      inputSchema: { type: 'object', properties: {} },
      run: () => ({ content: [{ type: 'text', text: String(mcp.openSessions()) }] }),
    });
  }, 60_000);
  afterAll(async () => {
    await mcp?.close();
    await h?.close();
  });

  it('a skill calls MCP tools in its own session and a nested skill; traces, events and usage roll up', async () => {
    const created = await call(h, 'POST', '/v1/agents', {
      key,
      body: { config: nestedConfig(h.endpoint.url, mcp.url) },
    });
    expect(created.status).toBe(201);
    const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: created.json.id } });
    const modelCalls = h.llm.requests.length;
    h.llm.enqueue(
      // Parent → research.
      {
        type: 'reply',
        toolCalls: [{ id: 'p1', name: 'skill__research', arguments: { input: 'Where is order 9?' } }],
        usage: { input: 100, output: 10 },
      },
      // research → the desk (MCP) and the orders skill.
      {
        type: 'reply',
        toolCalls: [
          { id: 'r1', name: 'desk__echo', arguments: { text: 'order 9' } },
          { id: 'r2', name: 'skill__orders', arguments: { input: 'Look up order 9' } },
        ],
        usage: { input: 40, output: 4 },
      },
      // orders → its HTTP tool, then its answer.
      {
        type: 'reply',
        toolCalls: [{ id: 'o1', name: 'lookup_order', arguments: { id: '9' } }],
        usage: { input: 20, output: 2 },
      },
      { type: 'reply', text: 'Order 9 is packed.', usage: { input: 10, output: 3 } },
      // research answers.
      { type: 'reply', text: 'Order 9 is packed and ready.', usage: { input: 30, output: 5 } },
      // Parent: how many MCP sessions are open now that the skill is done (its own one only)?
      {
        type: 'reply',
        toolCalls: [{ id: 'p2', name: 'desk__sessions', arguments: {} }],
        usage: { input: 50, output: 1 },
      },
      { type: 'reply', text: 'Your order 9 is packed.', usage: { input: 60, output: 6 } },
    );
    const sent = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, {
      key,
      body: { content: 'Where is my order 9?' },
    });
    expect(sent.status).toBe(200);
    expect(sent.json).toMatchObject({
      status: 'completed',
      reply: 'Your order 9 is packed.',
      tool_calls: [
        { name: 'skill__research', output: 'Order 9 is packed and ready.', is_error: false },
        // The skill's session closed when the skill ended; only the parent's own is open.
        { name: 'desk__sessions', output: '1', is_error: false },
      ],
      // Everyone's tokens; tool calls: parent 2 + research 2 + orders 1.
      meta: { input_tokens: 310, output_tokens: 31, tool_call_count: 5 },
    });

    // What each level was offered.
    const requests = h.llm.requests.slice(modelCalls);
    const offered = (i: number) => requests[i]!.body.tools.map((t: any) => t.function.name).sort();
    expect(offered(0)).toEqual(['desk__echo', 'desk__sessions', 'skill__orders', 'skill__research']);
    expect(offered(1)).toEqual(['desk__echo', 'desk__sessions', 'skill__orders']);
    expect(offered(2)).toEqual(['lookup_order']);
    expect(mcp.calls.findLast((c) => c.tool === 'echo')?.arguments).toEqual({ text: 'order 9' });
    expect(h.endpoint.requests.at(-1)).toMatchObject({ method: 'GET', path: '/orders/9' });

    // The nested trace: parent step → research → orders.
    const run = await call(h, 'GET', `/v1/runs/${sent.json.id}`, { key });
    const research = run.json.steps[0].toolCalls[0].skill;
    expect(research).toMatchObject({
      skill: 'research',
      status: 'completed',
      toolCallCount: 3,
      usage: { inputTokens: 100, outputTokens: 14 },
    });
    expect(research.steps[0].toolCalls).toMatchObject([
      { name: 'desk__echo', isError: false },
      {
        name: 'skill__orders',
        skill: { skill: 'orders', status: 'completed', toolCallCount: 1, usage: { inputTokens: 30 } },
      },
    ]);

    // Events nest two deep.
    const stream = await fetch(`${h.platform.url}/v1/runs/${sent.json.id}/events`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    });
    const events = await readSse(stream);
    const deep = events.filter((e) => e.data.type === 'skill-event' && e.data.event.type === 'skill-event');
    expect(deep.length).toBeGreaterThan(2);
    expect(deep.every((e) => e.data.skill === 'research' && e.data.event.skill === 'orders')).toBe(true);
    expect(deep.map((e) => e.data.event.event.type)).toEqual(expect.arrayContaining(['tool-call', 'run-finished']));
    await expect.poll(() => mcp.openSessions()).toBe(0);
  });

  it('refuses skills nested more than two deep, and skills calling each other in a circle', async () => {
    const deep = nestedConfig(h.endpoint.url, mcp.url);
    deep.skills.push({ ...deep.skills[1]!, name: 'billing' } as any);
    (deep.skills[1] as any).skills = ['billing'];
    const refused = await call(h, 'POST', '/v1/agents', { key, body: { config: deep } });
    expect(refused.status).toBe(422);
    expect(refused.json.errors).toEqual([
      expect.objectContaining({ path: '/skills/1/skills/0', code: 'skill_depth_exceeded', hint: expect.any(String) }),
    ]);
    const circle = nestedConfig(h.endpoint.url, mcp.url);
    (circle.skills[1] as any).skills = ['research'];
    const looped = await call(h, 'POST', '/v1/agents', { key, body: { config: circle } });
    expect(looped.status).toBe(422);
    expect(looped.json.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: '/skills/1/skills/0', code: 'skill_cycle' })]),
    );
  });
});
