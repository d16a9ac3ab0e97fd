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
