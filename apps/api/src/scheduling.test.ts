import { availableServices } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, seedConfig, startHarness, waitForRun } from './test-support/harness.ts';

const modes = availableServices().postgres && availableServices().redis ? ['embedded', 'production'] : ['embedded'];
if (modes.length === 1)
  console.warn('[scheduling] NOTICE: Postgres or Redis unavailable: the production mode is SKIPPED.');

/** A config without tools: a run is one model call. */
function plainAgent() {
  const config = seedConfig();
  config.tools = [];
  config.action_books = [];
  return config;
}

async function conversation(h: Harness, key: string, agentId: string): Promise<string> {
  return (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agentId } })).json.id;
}

async function postAsync(h: Harness, key: string, conversationId: string, content: string): Promise<string> {
  const res = await fetch(`${h.platform.url}/v1/conversations/${conversationId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', prefer: 'respond-async' },
    body: JSON.stringify({ content }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

describe.each(modes)('scheduling without polling (%s)', (mode) => {
  let h: Harness;
  let keyA: string;
  let keyB: string;
  let agentA: string;
  let agentB: string;
  beforeAll(async () => {
    h = await startHarness(mode as 'embedded' | 'production', 'openai', { env: { TENANT_CONCURRENCY: '1' } });
    keyA = await createTenant(h, 'Busy tenant');
    keyB = await createTenant(h, 'Other tenant');
    agentA = (await call(h, 'POST', '/v1/agents', { key: keyA, body: { config: plainAgent() } })).json.id;
    agentB = (await call(h, 'POST', '/v1/agents', { key: keyB, body: { config: plainAgent() } })).json.id;
  }, 120_000);
  afterAll(() => h?.close());

  it("parks a tenant's backlog instead of re-queuing it, serves another tenant meanwhile, and cancels a parked run at once", async () => {
    const calls = h.llm.requests.length;
    // Exactly the calls expected: three of A's runs and B's (the fake model answers in order).
    for (let i = 0; i < 4; i++) h.llm.enqueue({ type: 'reply', text: `answer ${i}`, delayMs: 1500 });
    const runs: string[] = [];
    for (let i = 0; i < 4; i++) runs.push(await postAsync(h, keyA, await conversation(h, keyA, agentA), `q${i}`));

    // While A's backlog waits for its one slot, no job waits on a timer: nothing is delayed and at
    // most the one dispatched job is queued or running (the old design re-queued every waiting run).
    const samples: Array<{ waiting: number; active: number; delayed: number }> = [];
    for (let i = 0; i < 8; i++) {
      samples.push(await h.platform.queue.counts());
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(samples.filter((s) => s.delayed > 0 || s.waiting + s.active > 1)).toEqual([]);

    // The other tenant's message does not wait behind A's backlog.
    const b = await call(h, 'POST', `/v1/conversations/${await conversation(h, keyB, agentB)}/messages`, {
      key: keyB,
      body: { content: 'hello' },
    });
    expect(b.status).toBe(200);
    expect(b.json.status).toBe('completed');

    // A parked run is cancelled at once, for good.
    const parked = runs[3]!;
    const cancelled = await call(h, 'POST', `/v1/runs/${parked}/cancel`, { key: keyA });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.status).toBe('cancelled');

    const done = [];
    for (const id of runs.slice(0, 3)) done.push(await waitForRun(h, keyA, id, 60_000));
    expect(done.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    // B finished before A's backlog reached its third run: it did not queue behind it.
    expect(Date.parse(b.json.finished_at)).toBeLessThan(Math.max(...done.map((r) => Date.parse(r.started_at))));
    expect((await call(h, 'GET', `/v1/runs/${parked}`, { key: keyA })).json.status).toBe('cancelled');
    // Three of A's runs and B's asked the model; the cancelled one never did.
    expect(h.llm.requests.length - calls).toBe(4);
  }, 90_000);

  it("runs a conversation's messages in order, each started by the end of the one before", async () => {
    for (let i = 0; i < 3; i++) h.llm.enqueue({ type: 'reply', text: `turn ${i}`, delayMs: 300 });
    const conv = await conversation(h, keyB, agentB);
    const runs: string[] = [];
    for (let i = 0; i < 3; i++) runs.push(await postAsync(h, keyB, conv, `m${i}`));
    const ended = [];
    for (const id of runs) ended.push(await waitForRun(h, keyB, id, 60_000));
    expect(ended.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    const starts = ended.map((r) => Date.parse(r.started_at));
    const finishes = ended.map((r) => Date.parse(r.finished_at));
    expect(starts[1]).toBeGreaterThanOrEqual(finishes[0]!);
    expect(starts[2]).toBeGreaterThanOrEqual(finishes[1]!);
    expect((await h.platform.queue.counts()).delayed).toBe(0);
  }, 90_000);

  it('cancels a run waiting for a person at once, and the next message of its conversation runs', async () => {
    const config = plainAgent();
    config.tools = [
      {
        name: 'browser_js_eval',
        description: 'Run JavaScript in the user’s browser and return the result',
        type: 'client',
        parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
      },
    ];
    const agent = (await call(h, 'POST', '/v1/agents', { key: keyB, body: { config } })).json.id;
    const conv = await conversation(h, keyB, agent);
    h.llm.enqueue(
      { type: 'reply', toolCalls: [{ id: 'call_js', name: 'browser_js_eval', arguments: { code: '1+1' } }] },
      { type: 'reply', text: 'next one' },
    );
    const waiting = await postAsync(h, keyB, conv, 'compute');
    const until = Date.now() + 30_000;
    while ((await call(h, 'GET', `/v1/runs/${waiting}`, { key: keyB })).json.status !== 'waiting') {
      if (Date.now() > until) throw new Error('the run never waited');
      await new Promise((r) => setTimeout(r, 100));
    }
    const next = await postAsync(h, keyB, conv, 'something else');
    const cancelled = await call(h, 'POST', `/v1/runs/${waiting}/cancel`, { key: keyB });
    expect(cancelled.json.status).toBe('cancelled');
    expect((await waitForRun(h, keyB, next, 30_000)).status).toBe('completed');
  }, 90_000);
});
