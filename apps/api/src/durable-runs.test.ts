import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createTenant,
  type Harness,
  rowCounts,
  runModes,
  seedConfig,
  startHarness,
  waitForRun,
} from './test-support/harness.ts';

const modes = runModes('durable-runs');

describe.each(modes)('conversations are serialised and runs cancellable (%s)', (mode) => {
  let h: Harness;
  let key: string;
  const agents: Record<string, string> = {};
  beforeAll(async () => {
    h = await startHarness(mode, 'openai');
    key = await createTenant(h);
    for (const policy of ['reject', 'enqueue', 'interrupt'] as const) {
      const config = seedConfig();
      config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
      config.busy_policy = policy;
      agents[policy] = (await call(h, 'POST', '/v1/agents', { key, body: { config } })).json.id;
    }
  }, 60_000);
  afterAll(() => h?.close());

  const conversation = async (policy: string) =>
    (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agents[policy] } })).json.id as string;
  const sendAsync = async (conversationId: string, content: string) => {
    const res = await fetch(`${h.platform.url}/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ content }),
    });
    return { status: res.status, json: await res.json() };
  };
  const waitUntilRunning = async (runId: string) => {
    for (let i = 0; i < 200; i++) {
      if ((await call(h, 'GET', `/v1/runs/${runId}`, { key })).json.status === 'running') return;
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  it('reject: a second message while a run is active gets 409 and writes nothing', async () => {
    const id = await conversation('reject');
    h.llm.enqueue({ type: 'reply', text: 'slow answer', delayMs: 1500 });
    const first = await sendAsync(id, 'first');
    expect(first.status).toBe(202);
    const before = await rowCounts(h);
    const second = await sendAsync(id, 'second');
    expect([second.status, second.json.code]).toEqual([409, 'conversation_busy']);
    expect(await rowCounts(h)).toEqual(before);
    expect((await waitForRun(h, key, first.json.id)).status).toBe('completed');
  });

  it('enqueue: the second message runs after the first, and the transcript stays in order', async () => {
    const id = await conversation('enqueue');
    h.llm.enqueue({ type: 'reply', text: 'one', delayMs: 800 }, { type: 'reply', text: 'two' });
    const first = await sendAsync(id, 'first');
    const second = await sendAsync(id, 'second');
    expect(second.status).toBe(202);
    expect((await waitForRun(h, key, first.json.id)).reply).toBe('one');
    expect((await waitForRun(h, key, second.json.id)).reply).toBe('two');
    const transcript = (await call(h, 'GET', `/v1/conversations/${id}`, { key })).json.messages;
    expect(transcript.map((m: any) => `${m.role}:${m.content[0].text}`)).toEqual([
      'user:first',
      'assistant:one',
      'user:second',
      'assistant:two',
    ]);
    // The second run saw the first exchange.
    expect(JSON.stringify(h.llm.requests.at(-1)!.body)).toContain('one');
  });

  it('interrupt: a new message cancels the running one, then runs', async () => {
    const id = await conversation('interrupt');
    h.llm.enqueue(
      { type: 'reply', text: 'a very long answer that takes its time '.repeat(20), chunkSize: 4, chunkDelayMs: 40 },
      { type: 'reply', text: 'fresh answer' },
    );
    const first = await sendAsync(id, 'first');
    await waitUntilRunning(first.json.id);
    const second = await sendAsync(id, 'actually, something else');
    expect((await waitForRun(h, key, first.json.id)).status).toBe('cancelled');
    expect((await waitForRun(h, key, second.json.id)).reply).toBe('fresh answer');
  });

  it('cancels a run mid-stream: the model stream stops and the run ends cancelled', async () => {
    const id = await conversation('enqueue');
    h.llm.enqueue({ type: 'reply', text: 'word '.repeat(400), chunkSize: 5, chunkDelayMs: 30 });
    const run = await sendAsync(id, 'talk a lot');
    await waitUntilRunning(run.json.id);
    const cancelled = await call(h, 'POST', `/v1/runs/${run.json.id}/cancel`, { key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.status).toBe('cancelled');
    expect(cancelled.json.reply).toBeNull();
    // Cancelling again is harmless; another tenant cannot.
    expect((await call(h, 'POST', `/v1/runs/${run.json.id}/cancel`, { key })).json.status).toBe('cancelled');
    const other = await createTenant(h, 'Other');
    expect((await call(h, 'POST', `/v1/runs/${run.json.id}/cancel`, { key: other })).status).toBe(404);
  });

  it('cancels a queued run before it starts', async () => {
    const id = await conversation('enqueue');
    h.llm.enqueue({ type: 'reply', text: 'first', delayMs: 1000 }, { type: 'reply', text: 'never used' });
    const first = await sendAsync(id, 'one');
    const second = await sendAsync(id, 'two');
    const cancelled = await call(h, 'POST', `/v1/runs/${second.json.id}/cancel`, { key });
    expect(cancelled.json.status).toBe('cancelled');
    expect((await waitForRun(h, key, first.json.id)).status).toBe('completed');
    const transcript = (await call(h, 'GET', `/v1/conversations/${id}`, { key })).json.messages;
    expect(transcript.map((m: any) => m.role)).toEqual(['user', 'assistant']);
  });
});
