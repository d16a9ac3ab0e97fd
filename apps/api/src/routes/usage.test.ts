import { runs, withSystemScope } from '@agentry/db';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, seedConfig, startHarness } from '../test-support/harness.ts';
import { readRange } from './usage.ts';

describe('usage date range', () => {
  it('defaults to the last 30 days and allows at most 92', () => {
    const { from, until } = readRange(undefined, '2026-03-31');
    expect([from.toISOString(), until.toISOString()]).toEqual(['2026-03-02T00:00:00.000Z', '2026-04-01T00:00:00.000Z']);
    expect(readRange('2026-01-01', '2026-04-02').until.toISOString()).toBe('2026-04-03T00:00:00.000Z'); // 92 days
    expect(() => readRange('2026-01-01', '2026-04-03')).toThrow(/at most 92 days/);
    expect(() => readRange('2026-02-30', '2026-03-01')).toThrow(/YYYY-MM-DD/);
    expect(() => readRange('2026-03-02', '2026-03-01')).toThrow(/must not be after/);
  });
});

describe('usage per tenant, agent and day', () => {
  let h: Harness;
  let key: string;
  let other: string;
  let agentA: string;
  let agentB: string;

  /** Sends one message to a new conversation of the agent and returns the run id. */
  async function chat(agentId: string, content: string): Promise<string> {
    const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agentId } });
    const run = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, { key, body: { content } });
    return run.json.id;
  }

  async function moveRun(runId: string, at: string): Promise<void> {
    await withSystemScope(h.platform.database.db, 'test: backdate a run', (tx) =>
      tx
        .update(runs)
        .set({ createdAt: new Date(at) })
        .where(eq(runs.id, runId)),
    );
  }

  beforeAll(async () => {
    h = await startHarness('embedded', 'openai');
    key = await createTenant(h, 'A');
    other = await createTenant(h, 'B');
    const config = seedConfig();
    config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    agentA = (await call(h, 'POST', '/v1/agents', { key, body: { config } })).json.id;
    agentB = (await call(h, 'POST', '/v1/agents', { key, body: { config } })).json.id;
    h.endpoint.respondWith((req) => ({
      status: (req.json as { email?: string } | undefined)?.email === 'bad@example.com' ? 500 : 200,
      body: { ok: true },
    }));
    const tool = (email: string) => ({
      type: 'reply' as const,
      toolCalls: [{ name: 'save_customer_information', arguments: { email } }],
    });

    // Agent A, 2026-03-10: a plain reply, a successful tool call, a failing tool call.
    h.llm.enqueue({ type: 'reply', text: 'Hi', usage: { input: 12, output: 7 } });
    await moveRun(await chat(agentA, 'hello'), '2026-03-10T08:00:00Z');
    h.llm.enqueue(tool('ann@example.com'), { type: 'reply', text: 'Saved' });
    await moveRun(await chat(agentA, 'ann@example.com'), '2026-03-10T12:00:00Z');
    h.llm.enqueue(tool('bad@example.com'), { type: 'reply', text: 'That failed' });
    await moveRun(await chat(agentA, 'bad@example.com'), '2026-03-10T23:59:59Z');
    // Agent B: a completed run late on 2026-03-09, a failed one at the first instant of 2026-03-10.
    h.llm.enqueue({ type: 'reply', text: 'Yes', usage: { input: 3, output: 2 } });
    await moveRun(await chat(agentB, 'hey'), '2026-03-09T23:59:59Z');
    h.llm.enqueue({ type: 'error', status: 400, message: 'model refused' });
    await moveRun(await chat(agentB, 'hey'), '2026-03-10T00:00:00Z');
    // Outside the range asked for below.
    h.llm.enqueue({ type: 'reply', text: 'Later' });
    await moveRun(await chat(agentB, 'hey'), '2026-03-11T00:00:00Z');
  }, 60_000);
  afterAll(() => h?.close());

  const zero = { cancelled: 0, cache_read_tokens: 0, cache_write_tokens: 0 };

  it('counts runs, outcomes, tokens, tool calls and tool errors per UTC day and agent, exactly', async () => {
    const res = await call(h, 'GET', '/v1/usage?from=2026-03-09&to=2026-03-10', { key });
    expect(res.status).toBe(200);
    const dayTen = [
      {
        date: '2026-03-10',
        agent_id: agentA,
        runs: 3,
        completed: 3,
        failed: 0,
        input_tokens: 12 + 20 + 20,
        output_tokens: 7 + 10 + 10,
        tool_calls: 2,
        tool_errors: 1,
        ...zero,
      },
      {
        date: '2026-03-10',
        agent_id: agentB,
        runs: 1,
        completed: 0,
        failed: 1,
        input_tokens: 0,
        output_tokens: 0,
        tool_calls: 0,
        tool_errors: 0,
        ...zero,
      },
    ].sort((a, b) => a.agent_id.localeCompare(b.agent_id));
    expect(res.json).toEqual({
      object: 'usage',
      from: '2026-03-09',
      to: '2026-03-10',
      data: [
        {
          date: '2026-03-09',
          agent_id: agentB,
          runs: 1,
          completed: 1,
          failed: 0,
          input_tokens: 3,
          output_tokens: 2,
          tool_calls: 0,
          tool_errors: 0,
          ...zero,
        },
        ...dayTen,
      ],
      totals: {
        runs: 5,
        completed: 4,
        failed: 1,
        input_tokens: 55,
        output_tokens: 29,
        tool_calls: 2,
        tool_errors: 1,
        ...zero,
      },
    });
  });

  it('filters by agent, and answers nothing for another tenant or an unknown agent', async () => {
    const onlyB = await call(h, 'GET', `/v1/usage?from=2026-03-09&to=2026-03-11&agent_id=${agentB}`, { key });
    expect(onlyB.json.data.map((r: { date: string; runs: number }) => [r.date, r.runs])).toEqual([
      ['2026-03-09', 1],
      ['2026-03-10', 1],
      ['2026-03-11', 1],
    ]);
    expect(onlyB.json.agent_id).toBe(agentB);
    const foreign = await call(h, 'GET', '/v1/usage?from=2026-03-09&to=2026-03-11', { key: other });
    expect([foreign.status, foreign.json.data, foreign.json.totals.runs]).toEqual([200, [], 0]);
    const foreignAgent = await call(h, 'GET', `/v1/usage?from=2026-03-09&to=2026-03-11&agent_id=${agentA}`, {
      key: other,
    });
    expect(foreignAgent.json.data).toEqual([]);
    expect((await call(h, 'GET', '/v1/usage?from=2026-03-09&to=2026-03-11&agent_id=nope', { key })).json.data).toEqual(
      [],
    );
  });

  it('validates the range: dates, order and at most 92 days', async () => {
    for (const query of ['from=2026-03-10&to=2026-03-09', 'from=2025-12-01&to=2026-03-10', 'from=10.03.2026']) {
      const res = await call(h, 'GET', `/v1/usage?${query}`, { key });
      expect([res.status, res.json.code]).toEqual([400, 'invalid_query']);
    }
    expect((await call(h, 'GET', '/v1/usage', {})).status).toBe(401);
    expect((await call(h, 'GET', '/v1/usage', { key })).status).toBe(200);
  });
});
