import { createInProcessQueue, createMemoryScheduler } from '@agentry/queue';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Admission, admit, createAdmission, giveBackAdmissionTurn, runBacklog } from './admission.ts';
import { problemResponse } from './problem.ts';

/** mulberry32: a small seeded generator, so a failing arrival sequence is replayed from its seed. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)) };
}

/** Lets promise callbacks, `setImmediate` hand-overs and timers due within `ms` run. */
async function settle(ms = 0): Promise<void> {
  for (let i = 0; i < 4; i++) await vi.advanceTimersByTimeAsync(i === 0 ? ms : 0);
}

function appWith(admission: Admission, route: (app: Hono) => void): Hono {
  const app = new Hono();
  app.onError((error, c) => problemResponse(c, error));
  app.use('*', admit(admission));
  route(app);
  return app;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('createAdmission', () => {
  it('admits up to maxInFlight, queues up to maxQueued, refuses the next with 503 server_busy and Retry-After', async () => {
    const admission = createAdmission({ maxInFlight: 1, maxQueued: 1, maxWaitMs: 3000 });
    const first = admission.tryAcquire()!;
    expect(admission.tryAcquire()).toBeUndefined();
    const queued = admission.acquire();
    await expect(admission.acquire()).rejects.toMatchObject({
      code: 'server_busy',
      status: 503,
      retryAfterMs: 3000,
      details: { reason: 'queue_full' },
    });
    first();
    first(); // a second call gives nothing back twice
    await settle();
    expect(admission.inFlight).toBe(1);
    const second = await queued;
    expect(admission.queued).toBe(0);
    second();
    expect(admission.inFlight).toBe(1); // until a later turn of the event loop
    await settle();
    expect(admission.inFlight).toBe(0);
  });

  it('refuses a waiter whose turn does not come within maxWaitMs', async () => {
    const admission = createAdmission({ maxInFlight: 1, maxQueued: 4, maxWaitMs: 500 });
    admission.tryAcquire();
    const waiting = admission.acquire();
    const refused = expect(waiting).rejects.toMatchObject({ code: 'server_busy', details: { reason: 'wait_timeout' } });
    await settle(500);
    await refused;
    expect(admission.queued).toBe(0);
  });

  it('frees a turn in a later turn of the event loop, so work chained by promises cannot take it back at once', async () => {
    const admission = createAdmission({ maxInFlight: 1, maxQueued: 1, maxWaitMs: 1000 });
    const release = admission.tryAcquire()!;
    const order: string[] = [];
    const queued = admission.acquire().then(() => order.push('handed over'));
    release();
    await Promise.resolve();
    await Promise.resolve();
    order.push('promise callbacks done');
    await settle();
    await queued;
    expect(order).toEqual(['promise callbacks done', 'handed over']);
    const sole = createAdmission({ maxInFlight: 1, maxQueued: 0, maxWaitMs: 1000 });
    sole.tryAcquire()!();
    expect(sole.tryAcquire()).toBeUndefined();
    await settle();
    expect(sole.tryAcquire()).toBeDefined();
  });

  /** Fills `admission` (maxInFlight 1) and gives `turns` turns back, one every `everyMs`. */
  async function drained(admission: Admission, turns: number, everyMs: number): Promise<void> {
    let release = admission.tryAcquire()!;
    for (let i = 0; i < turns; i++) {
      const next = admission.acquire();
      await settle(everyMs);
      release();
      await settle();
      release = await next;
    }
  }

  it('tells a refused caller when the queue will have moved, at its recent pace, from 1 s to the wait bound', async () => {
    const options = { maxInFlight: 1, maxQueued: 20, maxWaitMs: 8000 };
    // No turn given back yet: no evidence of the pace, the wait bound.
    const fresh = createAdmission({ ...options, maxQueued: 0 });
    fresh.tryAcquire();
    await expect(fresh.acquire()).rejects.toMatchObject({ retryAfterMs: 8000, details: { reason: 'queue_full' } });

    // 100 turns a second: 20 waiting ahead drain in 0.2 s, so 1 s (Retry-After is whole seconds).
    const fast = createAdmission(options);
    await drained(fast, 30, 10);
    const waiting = Array.from({ length: 20 }, () => fast.acquire().catch(() => undefined));
    await expect(fast.acquire()).rejects.toMatchObject({ retryAfterMs: 1000, details: { reason: 'queue_full' } });

    // 4 turns a second: 20 waiting (and the caller) need ≈ 5.25 s, so 6 s.
    const slow = createAdmission(options);
    await drained(slow, 10, 250);
    const slowWaiting = Array.from({ length: 20 }, () => slow.acquire().catch(() => undefined));
    await expect(slow.acquire()).rejects.toMatchObject({ retryAfterMs: 6000 });

    // 1 turn a second: 21 s, capped at the wait bound.
    const crawl = createAdmission(options);
    await drained(crawl, 4, 1000);
    const crawlWaiting = Array.from({ length: 20 }, () => crawl.acquire().catch(() => undefined));
    await expect(crawl.acquire()).rejects.toMatchObject({ retryAfterMs: 8000 });

    // Turns given back long ago (more than the wait bound): no evidence again.
    await settle(9000);
    await Promise.all([...waiting, ...slowWaiting, ...crawlWaiting]);
    const stale = createAdmission({ ...options, maxQueued: 1 });
    await drained(stale, 5, 10);
    await settle(8100);
    const staleWaiting = stale.acquire().catch(() => undefined);
    await expect(stale.acquire()).rejects.toMatchObject({ retryAfterMs: 8000 });
    await settle(8000);
    await staleWaiting;
  });
});

interface Simulated {
  res?: Response;
  ran: boolean;
  finish?: (fail: boolean) => void;
  abort: AbortController;
}

describe('admit (generated arrival sequences)', () => {
  it('never runs more than maxInFlight handlers, never queues more than maxQueued, answers every request and leaks no turn', async () => {
    const seen = { ran: 0, failed: 0, refused: 0, aborted: 0 };
    for (let seed = 1; seed <= 100; seed++) {
      const rnd = random(seed);
      const options = { maxInFlight: rnd.int(1, 4), maxQueued: rnd.int(0, 5), maxWaitMs: rnd.int(5, 80) };
      const admission = createAdmission(options);
      let running = 0;
      let maxRunning = 0;
      const requests: Simulated[] = [];
      const app = appWith(admission, (a) =>
        a.post('/r/:n', async (c) => {
          const request = requests[Number(c.req.param('n'))]!;
          request.ran = true;
          running++;
          maxRunning = Math.max(maxRunning, running);
          try {
            const fail = await new Promise<boolean>((done) => {
              request.finish = done;
            });
            if (fail) throw new Error('handler failed');
            return c.text(await c.req.text());
          } finally {
            running--;
          }
        }),
      );
      const context = `seed ${seed}, ${JSON.stringify(options)}`;
      for (let step = 0; step < 60; step++) {
        const roll = rnd.next();
        if (roll < 0.45) {
          const n = requests.length;
          const request: Simulated = { ran: false, abort: new AbortController() };
          requests.push(request);
          void Promise.resolve(
            app.request(`/r/${n}`, { method: 'POST', body: `body ${n}`, signal: request.abort.signal }),
          ).then((res) => {
            request.res = res;
          });
        } else if (roll < 0.75) {
          const active = requests.filter((r) => r.finish && !r.res);
          const pick = active[rnd.int(0, active.length - 1)];
          pick?.finish?.(rnd.next() < 0.3);
        } else if (roll < 0.85) {
          const open = requests.filter((r) => !r.res && !r.abort.signal.aborted);
          open[rnd.int(0, open.length - 1)]?.abort.abort();
        }
        await settle(roll >= 0.85 ? rnd.int(1, options.maxWaitMs) : 0);
        expect(admission.inFlight, context).toBeLessThanOrEqual(options.maxInFlight);
        expect(admission.queued, context).toBeLessThanOrEqual(options.maxQueued);
        expect(running, context).toBeLessThanOrEqual(admission.inFlight);
      }
      // Let everything still running finish (a queued request may yet be admitted, so repeat).
      for (let round = 0; round < 20 && requests.some((r) => !r.res); round++) {
        for (const r of requests) if (r.finish && !r.res) r.finish(false);
        await settle(options.maxWaitMs);
      }
      expect(maxRunning, context).toBeLessThanOrEqual(options.maxInFlight);
      for (const [n, r] of requests.entries()) {
        expect(r.res, `${context}: request ${n} has no answer`).toBeDefined();
        const status = r.res!.status;
        if (r.ran) {
          expect([200, 500], `${context}: request ${n}`).toContain(status);
          if (status === 200) expect(await r.res!.text()).toBe(`body ${n}`);
          seen[status === 200 ? 'ran' : 'failed']++;
        } else if (status === 503) {
          seen.refused++;
          expect(r.res!.headers.get('retry-after'), context).toBe(String(Math.ceil(options.maxWaitMs / 1000)));
          expect((await r.res!.json()).code).toBe('server_busy');
        } else {
          expect(status, `${context}: request ${n}`).toBe(499);
          expect(r.abort.signal.aborted).toBe(true);
          seen.aborted++;
        }
      }
      expect(admission.inFlight, context).toBe(0);
      expect(admission.queued, context).toBe(0);
    }
    // The sequences reach every outcome, or the checks above prove little.
    for (const count of Object.values(seen)) expect(count).toBeGreaterThan(10);
  });
});

describe('admit', () => {
  it('reads a request body before taking a turn, so a slow upload waits without one', async () => {
    const admission = createAdmission({ maxInFlight: 1, maxQueued: 0, maxWaitMs: 100 });
    const app = appWith(admission, (a) => a.post('/upload', async (c) => c.text(await c.req.text())));
    let push!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        push = controller;
      },
    });
    const uploading = app.request('/upload', { method: 'POST', body, duplex: 'half' } as RequestInit);
    await settle();
    expect(admission.inFlight).toBe(0);
    const other = await app.request('/upload', { method: 'POST', body: 'quick' });
    expect(await other.text()).toBe('quick');
    await settle();
    push.enqueue(new TextEncoder().encode('slow'));
    push.close();
    await settle();
    expect(await (await uploading).text()).toBe('slow');
    expect(admission.inFlight).toBe(0);
  });

  it('gives the turn back when an SSE answer starts, not when the stream ends', async () => {
    const admission = createAdmission({ maxInFlight: 1, maxQueued: 0, maxWaitMs: 100 });
    let end!: () => void;
    const app = appWith(admission, (a) => {
      a.get('/stream', (c) =>
        streamSSE(c, async (stream) => {
          await stream.writeSSE({ data: 'first' });
          await new Promise<void>((done) => {
            end = done;
          });
        }),
      );
      a.get('/other', (c) => c.text('ok'));
    });
    const streaming = await app.request('/stream');
    expect(streaming.status).toBe(200);
    await settle();
    expect(admission.inFlight).toBe(0);
    expect((await app.request('/other')).status).toBe(200);
    end();
    await streaming.text();
  });

  it('gives the turn back while a handler waits for its run (giveBackAdmissionTurn)', async () => {
    const admission = createAdmission({ maxInFlight: 1, maxQueued: 0, maxWaitMs: 100 });
    let finish!: () => void;
    const waitForRun = () => {
      giveBackAdmissionTurn();
      return new Promise<string>((done) => {
        finish = () => done('finished');
      });
    };
    const app = appWith(admission, (a) => {
      a.get('/wait', async (c) => c.text(await waitForRun()));
      a.get('/other', (c) => c.text('ok'));
    });
    const waiting = app.request('/wait');
    await settle();
    expect(admission.inFlight).toBe(0);
    expect((await app.request('/other')).status).toBe(200);
    await settle();
    finish();
    expect(await (await waiting).text()).toBe('finished');
    await settle();
    expect(admission.inFlight).toBe(0);
  });

  it('refuses at once past the queue, with problem+json and Retry-After', async () => {
    const admission = createAdmission({ maxInFlight: 1, maxQueued: 0, maxWaitMs: 2500 });
    const hold = admission.tryAcquire()!;
    const app = appWith(admission, (a) => a.get('/x', (c) => c.text('ok')));
    const res = await app.request('/x');
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('retry-after')).toBe('3');
    expect(await res.json()).toMatchObject({ code: 'server_busy', reason: 'queue_full' });
    hold();
  });
});

describe('runBacklog', () => {
  it('refuses a POST that would start a run while maxQueuedRuns runs wait, before the handler runs', async () => {
    const queue = createInProcessQueue(); // no worker: what is dispatched stays waiting
    // Cap 1: the first run is dispatched, the second parked by the scheduler; both count.
    const scheduler = createMemoryScheduler({ perTenant: 1, dispatch: (id, data) => queue.enqueue(id, data) });
    const backlog = async () => (await scheduler.backlog()) + (await queue.counts()).waiting;
    let handled = 0;
    const app = new Hono();
    app.onError((error, c) => problemResponse(c, error));
    app.use('/start', runBacklog(backlog, { maxInFlight: 1, maxQueued: 1, maxWaitMs: 100, maxQueuedRuns: 2 }));
    app.on(['GET', 'POST'], '/start', (c) => {
      handled++;
      return c.text('started');
    });
    for (const id of ['a', 'b']) {
      expect((await app.request('/start', { method: 'POST' })).status).toBe(200);
      await scheduler.submit({ runId: id, tenantId: 't' });
    }
    const refused = await app.request('/start', { method: 'POST' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toMatchObject({ code: 'server_busy', reason: 'run_backlog' });
    expect((await app.request('/start')).status).toBe(200); // reads start nothing
    expect(handled).toBe(3);
    await queue.close();
  });
});
