import { availableServices } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  exited,
  type Harness,
  type SseEvent,
  seedConfig,
  startWithPrivateRedis,
} from './test-support/harness.ts';

const ready = availableServices().postgres && availableServices().redis;
if (!ready)
  console.warn('[stream-fallback] NOTICE: Postgres or Redis unavailable: bus-failure stream tests are SKIPPED.');

/** An SSE stream read in the background: its events so far, and a promise of all of them at its end. */
function openStream(h: Harness, key: string, runId: string) {
  const events: SseEvent[] = [];
  const ended = (async () => {
    const res = await fetch(`${h.platform.url}/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    });
    expect(res.status).toBe(200);
    const { createParser } = await import('eventsource-parser');
    const parser = createParser({
      onEvent: (e) => events.push({ id: e.id, event: e.event, data: JSON.parse(e.data) }),
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return events;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  })();
  return { events, ended };
}

async function until(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The end a stream must have when its bus failed: the run from the database, then its final status, neither with an id. */
function expectOutcomeFromDatabase(events: SseEvent[], runId: string) {
  const [run, status] = events.slice(-2);
  expect(run).toMatchObject({
    id: undefined,
    event: 'run',
    data: { id: runId, status: 'completed', reply: 'Booked.' },
  });
  expect(status).toEqual({
    id: undefined,
    event: 'run-status',
    data: { type: 'run-status', status: 'completed', final: true },
  });
}

describe.runIf(ready)('event streams when Redis goes away (a private redis-server)', () => {
  let p: Awaited<ReturnType<typeof startWithPrivateRedis>>;
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    p = await startWithPrivateRedis();
    ({ h, key } = p);
  }, 60_000);
  afterAll(() => p?.close());

  it('streams open when Redis dies, and one opened while it is down, end with the outcome their runs reached', async () => {
    const config = seedConfig();
    config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    const agent = (await call(h, 'POST', '/v1/agents', { key, body: { config } })).json.id;
    // Each run waits in its tool call while Redis is killed, then completes with Redis gone.
    h.endpoint.respondWith(() => ({ status: 200, body: { saved: true }, delayMs: 3000 }));
    const runs: string[] = [];
    for (let i = 0; i < 3; i++) {
      h.llm.enqueue({
        type: 'reply',
        toolCalls: [{ id: `call_${i}`, name: 'save_customer_information', arguments: { email: 'kim@example.com' } }],
      });
      const conversation = (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent } })).json.id;
      const res = await fetch(`${h.platform.url}/v1/conversations/${conversation}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', prefer: 'respond-async' },
        body: JSON.stringify({ content: 'book kim@example.com' }),
      });
      runs.push(((await res.json()) as { id: string }).id);
      await h.endpoint.waitForRequests(i + 1, 10_000);
    }
    h.llm.enqueue(
      { type: 'reply', text: 'Booked.' },
      { type: 'reply', text: 'Booked.' },
      { type: 'reply', text: 'Booked.' },
    );
    // Two streams on the first run, one on each of the others; each has its first bus events.
    const open = [runs[0]!, runs[0]!, runs[1]!, runs[2]!].map((run) => ({ run, ...openStream(h, key, run) }));
    await until(() => open.every((s) => s.events.some((e) => e.id !== undefined)));

    p.redis.kill('SIGKILL');
    await exited(p.redis);
    try {
      const late = { run: runs[2]!, ...openStream(h, key, runs[2]!) };
      for (const stream of [...open, late]) {
        const events = await stream.ended;
        expectOutcomeFromDatabase(events, stream.run);
        // Nothing after the bus's events carries an id: a resume starts after the last one the bus gave.
        expect(events.filter((e) => e.id === undefined).map((e) => e.event)).toEqual(['run', 'run-status']);
      }
      // A stream of a finished run, opened with Redis still down, answers from the database at once.
      const after = openStream(h, key, runs[1]!);
      expectOutcomeFromDatabase(await after.ended, runs[1]!);
    } finally {
      // Back up for the harness's shutdown (its queue and workers close through Redis).
      await p.restartRedis();
    }
  }, 60_000);

  it('a message waiting for its run when Redis dies still answers with the finished run', async () => {
    const config = seedConfig();
    config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    const agent = (await call(h, 'POST', '/v1/agents', { key, body: { config } })).json.id;
    const conversation = (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent } })).json.id;
    h.endpoint.respondWith(() => ({ status: 200, body: { saved: true }, delayMs: 3000 }));
    // The previous test restarted Redis: the API takes messages again once its queue answers.
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
      const ready = await fetch(`${h.platform.url}/readyz`).then((r) => r.json() as Promise<{ status: string }>);
      if (ready.status === 'ready') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const before = h.endpoint.requests.length;
    h.llm.enqueue(
      {
        type: 'reply',
        toolCalls: [{ id: 'call_wait', name: 'save_customer_information', arguments: { email: 'kim@example.com' } }],
      },
      { type: 'reply', text: 'Booked.' },
    );
    const answer = call(h, 'POST', `/v1/conversations/${conversation}/messages`, {
      key,
      body: { content: 'book kim@example.com' },
    });
    await h.endpoint.waitForRequests(before + 1, 20_000);
    p.redis.kill('SIGKILL');
    await exited(p.redis);
    try {
      const res = await answer;
      expect(res.status).toBe(200);
      expect(res.json.status).toBe('completed');
    } finally {
      await p.restartRedis();
    }
  }, 90_000);
});
