import { availableServices } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createTenant,
  exited,
  type Harness,
  rowCounts,
  seedConfig,
  startHarness,
  startWithPrivateRedis,
  waitForRun,
} from './test-support/harness.ts';

const ready = availableServices().postgres && availableServices().redis;
if (!ready) console.warn('[fault-tolerance] NOTICE: Postgres or Redis unavailable: worker crash tests are SKIPPED.');

/** Agents whose tool is idempotent (re-sent after a crash) or not (reported unknown). */
async function setUp(h: Harness, key: string, idempotent: boolean) {
  const config = seedConfig();
  config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
  config.tools[0].idempotent = idempotent;
  const agent = (await call(h, 'POST', '/v1/agents', { key, body: { config } })).json.id;
  return (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent } })).json.id as string;
}

async function sendAsync(h: Harness, key: string, conversationId: string, content: string) {
  const res = await fetch(`${h.platform.url}/v1/conversations/${conversationId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', prefer: 'respond-async' },
    body: JSON.stringify({ content }),
  });
  return { status: res.status, json: await res.json() };
}

function scriptBooking(h: Harness) {
  h.llm.enqueue(
    {
      type: 'reply',
      toolCalls: [{ id: 'call_book', name: 'save_customer_information', arguments: { email: 'kim@example.com' } }],
    },
    { type: 'reply', text: 'Booked.' },
  );
}

describe.runIf(ready)('worker crashes and shutdowns (Postgres + BullMQ, worker processes)', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    // A short job lock so a killed worker's job moves to another one quickly.
    h = await startHarness('production', 'openai', { env: { JOB_LOCK_MS: '1500' }, workers: 1 });
    key = await createTenant(h);
  }, 60_000);
  afterAll(() => h?.close());

  it('kill -9 mid-request: another worker finishes the run; an idempotent call is re-sent once with the same key', async () => {
    const conversationId = await setUp(h, key, true);
    scriptBooking(h);
    h.endpoint.reset();
    // Held long enough that the worker is killed while the request is in flight.
    h.endpoint.respondWith(() => ({ status: 200, body: { saved: true }, delayMs: 10_000 }));
    const llmBefore = h.llm.requests.length;
    const run = await sendAsync(h, key, conversationId, 'book kim@example.com');
    await h.endpoint.waitForRequests(1, 10_000);
    const victim = h.workers[0]!;
    await h.addWorker();
    victim.kill('SIGKILL');
    h.endpoint.respondWith(() => ({ status: 200, body: { saved: true } }));
    const done = await waitForRun(h, key, run.json.id, 45_000);
    expect(done.status).toBe('completed');
    expect(done.reply).toBe('Booked.');
    const hits = h.endpoint.requests;
    expect(hits).toHaveLength(2);
    expect(new Set(hits.map((r) => r.headers['idempotency-key']))).toEqual(new Set([`${run.json.id}:call_book`]));
    // The model was not asked again for the step whose output was stored.
    expect(h.llm.requests.length - llmBefore).toBe(2);
    const transcript = (await call(h, 'GET', `/v1/conversations/${conversationId}`, { key })).json.messages;
    expect(transcript.map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(transcript.map((m: any) => m.seq)).toEqual([1, 2, 3, 4]);
  }, 60_000);

  it('kill -9 mid-request on a non-idempotent tool: not re-sent, the model is told the outcome is unknown', async () => {
    const conversationId = await setUp(h, key, false);
    scriptBooking(h);
    h.endpoint.reset();
    // Held long enough that the worker is killed while the request is in flight.
    h.endpoint.respondWith(() => ({ status: 200, body: { saved: true }, delayMs: 10_000 }));
    const run = await sendAsync(h, key, conversationId, 'book kim@example.com');
    await h.endpoint.waitForRequests(1, 10_000);
    const victim = h.workers.find((w) => w.exitCode === null && w.signalCode === null)!;
    if (h.workers.filter((w) => w.exitCode === null && w.signalCode === null).length < 2) await h.addWorker();
    victim.kill('SIGKILL');
    const done = await waitForRun(h, key, run.json.id, 45_000);
    expect(done.status).toBe('completed');
    expect(h.endpoint.requests).toHaveLength(1);
    expect(done.tool_calls[0]).toMatchObject({ is_error: true, output: { error: 'outcome_unknown' } });
    expect(JSON.stringify(h.llm.requests.at(-1)!.body)).toContain('outcome_unknown');
  }, 60_000);

  it('SIGTERM during a tool call: the step checkpoints, the worker exits cleanly, another resumes', async () => {
    const conversationId = await setUp(h, key, false);
    scriptBooking(h);
    h.endpoint.reset();
    h.endpoint.respondWith(() => ({ status: 200, body: { saved: true }, delayMs: 1500 }));
    const llmBefore = h.llm.requests.length;
    // Only one worker alive, so we know who holds the run.
    for (const w of h.workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    const holder = await h.addWorker();
    const run = await sendAsync(h, key, conversationId, 'book kim@example.com');
    await h.endpoint.waitForRequests(1, 10_000);
    holder.kill('SIGTERM');
    expect(await exited(holder)).toBe(0);
    await h.addWorker();
    const done = await waitForRun(h, key, run.json.id, 45_000);
    expect(done.status).toBe('completed');
    expect(h.endpoint.requests).toHaveLength(1);
    expect(done.tool_calls[0].is_error).toBe(false);
    expect(h.llm.requests.length - llmBefore).toBe(2);
  }, 60_000);
});

describe.runIf(ready)('Redis faults (a private redis-server)', () => {
  let p: Awaited<ReturnType<typeof startWithPrivateRedis>>;
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    p = await startWithPrivateRedis();
    ({ h, key } = p);
  }, 60_000);
  afterAll(() => p?.close());

  it('Redis restarted mid-run: the run still completes', async () => {
    const conversationId = await setUp(h, key, false);
    scriptBooking(h);
    h.endpoint.respondWith(() => ({ status: 200, body: { saved: true }, delayMs: 2000 }));
    const run = await sendAsync(h, key, conversationId, 'book kim@example.com');
    await h.endpoint.waitForRequests(1, 10_000);
    p.redis.kill('SIGKILL');
    await exited(p.redis);
    await p.restartRedis();
    const done = await waitForRun(h, key, run.json.id, 45_000);
    expect(done.status).toBe('completed');
    expect(h.endpoint.requests).toHaveLength(1);
  }, 60_000);

  it('Redis down while the API takes a message: 503 queue_unavailable and no orphan rows', async () => {
    const conversationId = await setUp(h, key, false);
    p.redis.kill('SIGKILL');
    await exited(p.redis);
    try {
      const before = await rowCounts(h);
      const res = await call(h, 'POST', `/v1/conversations/${conversationId}/messages`, {
        key,
        body: { content: 'hello' },
      });
      expect([res.status, res.json.code]).toEqual([503, 'queue_unavailable']);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await rowCounts(h)).toEqual(before);
      // The API stays in the load balancer: reads work, only writes that need the queue are refused.
      const ready = await call(h, 'GET', '/readyz');
      expect([ready.status, ready.json.status, ready.json.degraded]).toEqual([200, 'degraded', ['queue']]);
      expect(ready.json.checks.database).toBe('ok');
      expect(ready.json.checks.queue).toMatch(/^error: /);
      expect((await call(h, 'GET', '/healthz')).status).toBe(200);
      expect((await call(h, 'GET', `/v1/conversations/${conversationId}`, { key })).status).toBe(200);
    } finally {
      await p.restartRedis();
    }
    // Back to `ready` once Redis answers again.
    const until = Date.now() + 15_000;
    let ready = await call(h, 'GET', '/readyz');
    while (ready.json.status !== 'ready' && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      ready = await call(h, 'GET', '/readyz');
    }
    expect([ready.status, ready.json]).toEqual([
      200,
      // Knowledge bases' vector search: this machine's Postgres has no pgvector.
      { status: 'ready', checks: { database: 'ok', queue: 'ok' }, vector_search: 'builtin' },
    ]);
  }, 60_000);
});
