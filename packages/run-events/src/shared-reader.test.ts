import { randomBytes } from 'node:crypto';
import { getEventListeners } from 'node:events';
import {
  availableServices,
  deleteRedisKeys,
  freePort,
  redisServerInstalled,
  startPrivateRedis,
  stopPrivateRedis,
  testServices,
} from '@agentry/testkit';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisBus, type RedisBusOptions, type RedisRunEventBus } from './redis-bus.ts';
import { readPauseMs } from './shared-reader.ts';
import type { RunEventRecord } from './types.ts';

const prefix = `test-${randomBytes(6).toString('hex')}`;
const limits = { maxEventsPerRun: 10_000, ttlSeconds: 60, finishedTtlSeconds: 30 };
const open: RedisRunEventBus[] = [];
afterAll(async () => {
  await Promise.all(open.map((bus) => bus.close()));
  await deleteRedisKeys(prefix).catch(() => {});
});

/** A bus with a prefix of its own (under the file's), so connection names count this bus only. */
function makeBus(options: Partial<RedisBusOptions> = {}): RedisRunEventBus & { prefix: string } {
  const own = `${prefix}:${open.length}`;
  const bus = createRedisBus({ redisUrl: testServices.redisUrl, prefix: own, limits, ...options });
  open.push(bus);
  return Object.assign(bus, { prefix: own });
}

const newRun = () => `run-${randomBytes(4).toString('hex')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** All records until the end; a `paced` consumer takes a millisecond per record, as a slow client would. */
async function collect(iterable: AsyncIterable<RunEventRecord>, paced = false): Promise<RunEventRecord[]> {
  const out: RunEventRecord[] = [];
  for await (const record of iterable) {
    out.push(record);
    if (paced) await sleep(1);
  }
  return out;
}

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

/** Connections Redis has under a name this bus gave them (`CLIENT LIST`). */
async function namedConnections(name: string, url = testServices.redisUrl): Promise<number> {
  const redis = new Redis(url);
  try {
    const list = (await redis.call('CLIENT', 'LIST')) as string;
    return list.split('\n').filter((line) => line.includes(` name=${name} `)).length;
  } finally {
    redis.disconnect();
  }
}

/** Numbers `from`…`to - 1`, then `'end'`: what a subscriber of a run published by `publishRun` expects. */
const sequence = (from: number, to: number) => [...Array.from({ length: to - from }, (_, i) => from + i), 'end'];
const numbers = (records: RunEventRecord[]) => records.map((r) => (r.event.final ? 'end' : r.event.i));

function expectOrderedUnique(records: RunEventRecord[]) {
  const ids = records.map((r) => r.id);
  expect(new Set(ids).size).toBe(ids.length);
  const sorted = [...ids].sort((a, b) => {
    const [ma, sa] = a.split('-').map(BigInt) as [bigint, bigint];
    const [mb, sb] = b.split('-').map(BigInt) as [bigint, bigint];
    return ma === mb ? Number(sa - sb) : Number(ma - mb);
  });
  expect(ids).toEqual(sorted);
}

describe.runIf(availableServices().redis)('redis bus: the shared reader', () => {
  it('serves 200 subscribers over 50 runs from the pool’s connections, each with exactly its events in order', async () => {
    const bus = makeBus({ readerConnections: 2 });
    const runs = Array.from({ length: 50 }, newRun);
    for (const run of runs) await bus.publish(run, { type: 'delta', i: 0 });
    const subscribers = runs.flatMap((run) =>
      Array.from({ length: 4 }, () => ({ run, got: collect(bus.subscribe(run)) })),
    );
    await until(() => bus.stats().following === 200);
    // Every subscriber is now in the shared read: count what Redis sees.
    expect(await namedConnections(`${bus.prefix}:run-events:reader`)).toBeGreaterThanOrEqual(1);
    expect(await namedConnections(`${bus.prefix}:run-events:reader`)).toBeLessThanOrEqual(2);
    expect(await namedConnections(`${bus.prefix}:run-events:writer`)).toBe(1);
    expect(bus.stats()).toMatchObject({ subscriptions: 200, streams: 50 });
    expect(bus.stats().readerConnections).toBeLessThanOrEqual(2);
    // Interleaved across runs, as concurrent workers would publish.
    for (let i = 1; i < 20; i++) await Promise.all(runs.map((run) => bus.publish(run, { type: 'delta', i })));
    await Promise.all(runs.map((run) => bus.publish(run, { type: 'done', final: true })));
    for (const { run, got } of subscribers) {
      const records = await got;
      expect(numbers(records), run).toEqual(sequence(0, 20));
      expectOrderedUnique(records);
    }
    expect(bus.stats()).toMatchObject({ subscriptions: 0, following: 0, streams: 0 });
  });

  it('a subscriber joining mid-stream gets the history, then live events, with no gap or duplicate', async () => {
    // A small buffer also sends the joiners through the lagging path (detached, caught up, rejoined).
    const bus = makeBus({ subscriberBuffer: 8 });
    const run = newRun();
    const ids: string[] = [];
    const first = collect(bus.subscribe(run));
    const joiners: Array<{ from: number; got: Promise<RunEventRecord[]> }> = [];
    for (let i = 0; i < 600; i++) {
      ids.push(await bus.publish(run, { type: 'delta', i }));
      if (i === 100) joiners.push({ from: 0, got: collect(bus.subscribe(run), true) });
      if (i === 250) joiners.push({ from: 31, got: collect(bus.subscribe(run, { after: ids[30] }), true) });
      if (i === 400) joiners.push({ from: 400, got: collect(bus.subscribe(run, { after: ids[399] }), true) });
      if (i % 50 === 0) await sleep(5); // let the joiners reach the live read while events keep coming
    }
    await bus.publish(run, { type: 'done', final: true });
    expect(numbers(await first)).toEqual(sequence(0, 600));
    for (const { from, got } of joiners) {
      const records = await got;
      expect(numbers(records)).toEqual(sequence(from, 600));
      expectOrderedUnique(records);
    }
  });

  it('a new subscriber does not wait for the blocking read in progress to time out', async () => {
    const bus = makeBus({ blockMs: 30_000, readerConnections: 1 });
    const quiet = new AbortController();
    const waiting = collect(bus.subscribe(newRun(), { signal: quiet.signal }));
    await until(() => bus.stats().following === 1);
    await sleep(100); // the reader is now blocked for up to 30 s
    const run = newRun();
    const started = performance.now();
    const got = collect(bus.subscribe(run));
    await until(() => bus.stats().following === 2);
    await bus.publish(run, { type: 'done', final: true });
    expect(numbers(await got)).toEqual(['end']);
    expect(performance.now() - started).toBeLessThan(2000);
    quiet.abort();
    expect(await waiting).toEqual([]);
  });

  it('a stalled subscriber neither delays another run’s subscriber nor its own run’s, and stays bounded', async () => {
    const bus = makeBus({ subscriberBuffer: 16, readerConnections: 1 });
    const busy = newRun();
    const other = newRun();
    const stalled = bus.subscribe(busy)[Symbol.asyncIterator]();
    const firstStalled = stalled.next();
    await until(() => bus.stats().following === 1);
    await bus.publish(busy, { type: 'delta', i: 0 });
    expect((await firstStalled).value?.event.i).toBe(0); // then it stops pulling
    const sameRun = collect(bus.subscribe(busy));
    const otherRun = bus.subscribe(other)[Symbol.asyncIterator]();
    const firstOther = otherRun.next();
    await until(() => bus.stats().following === 3);
    for (let i = 1; i < 500; i++) await bus.publish(busy, { type: 'delta', i });
    // The stalled one overflowed its 16 places and was let go; the others still follow.
    await until(() => bus.stats().following === 2);
    const sent = performance.now();
    await bus.publish(other, { type: 'ping' });
    expect((await firstOther).value?.event.type).toBe('ping');
    expect(performance.now() - sent).toBeLessThan(500);
    await bus.publish(busy, { type: 'done', final: true });
    await bus.publish(other, { type: 'done', final: true });
    expect(numbers(await sameRun)).toEqual(sequence(0, 500));
    expect((await otherRun.next()).value?.event.type).toBe('done');
    // Pulling again, the stalled one gets everything, in order, once.
    const rest: RunEventRecord[] = [];
    for (let next = await stalled.next(); !next.done; next = await stalled.next()) rest.push(next.value);
    expect(numbers(rest)).toEqual(sequence(1, 500));
    expectOrderedUnique(rest);
  });

  it('abort and early exit release every subscription, stream, listener and timer', async () => {
    const bus = makeBus({ readerConnections: 2 });
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const runs = Array.from({ length: 5 }, newRun);
    for (const run of runs) await bus.publish(run, { type: 'delta', i: 0 });
    const before = timers();
    const controllers = Array.from({ length: 20 }, () => new AbortController());
    const aborted = controllers.map((c, n) => collect(bus.subscribe(runs[n % 5]!, { signal: c.signal })));
    // Consumers that stop by themselves after the first event (`break`).
    const early = runs.map(async (run) => {
      for await (const record of bus.subscribe(run)) if (record.event.i === 1) break;
    });
    await until(() => bus.stats().following === 25);
    expect(getEventListeners(controllers[0]!.signal, 'abort')).toHaveLength(1);
    await Promise.all(runs.map((run) => bus.publish(run, { type: 'delta', i: 1 })));
    await Promise.all(early);
    for (const c of controllers) c.abort();
    for (const got of aborted) expect(numbers(await got)).toEqual([0, 1]);
    expect(bus.stats()).toMatchObject({ subscriptions: 0, following: 0, streams: 0 });
    for (const c of controllers) expect(getEventListeners(c.signal, 'abort')).toHaveLength(0);
    expect(timers()).toBeLessThanOrEqual(before);
    // The pool stays open while the bus lives, and goes with it.
    expect(bus.stats().readerConnections).toBeLessThanOrEqual(2);
    await bus.close();
    await until(() => bus.stats().readerConnections === 0);
    expect(await namedConnections(`${bus.prefix}:run-events:reader`)).toBe(0);
  });
});

describe.runIf(availableServices().redis)('redis bus: a restarted Redis (a private redis-server)', () => {
  it('subscribers resume from their last delivered id once ioredis has reconnected', async () => {
    const port = await freePort();
    let redis = await startPrivateRedis(port);
    const url = `redis://127.0.0.1:${port}`;
    const bus = createRedisBus({ redisUrl: url, prefix, limits, blockMs: 1000 });
    try {
      const runs = [newRun(), newRun()];
      const received = runs.map(() => [] as RunEventRecord[]);
      const done = runs.map(async (run, n) => {
        for await (const record of bus.subscribe(run)) received[n]!.push(record);
      });
      for (const run of runs) for (let i = 0; i < 3; i++) await bus.publish(run, { type: 'delta', i });
      await until(() => received.every((r) => r.length === 3));
      await stopPrivateRedis(redis);
      // One more subscriber arrives while Redis is away: its replay retries until it is back.
      const late = collect(bus.subscribe(runs[0]!));
      await sleep(500);
      redis = await startPrivateRedis(port);
      // The restarted server lost the streams; publishing resumes once the writer is back.
      for (const run of runs) {
        for (let i = 3; i < 6; i++) {
          for (;;) {
            try {
              await bus.publish(run, { type: 'delta', i });
              break;
            } catch {
              await sleep(100);
            }
          }
        }
        await bus.publish(run, { type: 'done', final: true });
      }
      await Promise.all(done);
      // The restart lost what was published before it; the late subscriber gets the rest.
      expect(numbers(await late)).toEqual(sequence(3, 6));
      for (const records of received) {
        expect(numbers(records)).toEqual(sequence(0, 6));
        expectOrderedUnique(records);
      }
      // The pool reconnected (and named itself again) rather than opening more.
      const readers = await namedConnections(`${prefix}:run-events:reader`, url);
      expect(readers).toBeGreaterThanOrEqual(1);
      expect(readers).toBeLessThanOrEqual(2);
    } finally {
      await bus.close();
      await stopPrivateRedis(redis);
    }
  }, 30_000);
});

describe('readPauseMs', () => {
  it('grows with the streams a read names, up to its bound, and is no pause below a millisecond', () => {
    expect(readPauseMs(10, 0.01, 20)).toBe(0);
    expect(readPauseMs(99, 0.01, 20)).toBe(0);
    expect(readPauseMs(1000, 0.01, 20)).toBe(10);
    expect(readPauseMs(100_000, 0.01, 20)).toBe(20);
  });
});

describe.runIf(redisServerInstalled('shared reader pacing'))('redis bus: reads paced by the streams they name', () => {
  it('reads at most once per pause however fast entries arrive, and every subscriber still gets exactly its events', async () => {
    // A private server: its XREAD count is this bus's alone.
    const port = await freePort();
    const redis = await startPrivateRedis(port);
    const url = `redis://127.0.0.1:${port}`;
    const streams = 200;
    const pauseMs = 10;
    const bus = createRedisBus({
      redisUrl: url,
      prefix,
      limits,
      readerConnections: 1,
      readPausePerStreamMs: pauseMs / streams,
      maxReadPauseMs: pauseMs,
    });
    const admin = new Redis(url);
    try {
      const runs = Array.from({ length: streams }, newRun);
      const followers = runs.map((run) => collect(bus.subscribe(run)));
      await until(() => bus.stats().streams === streams);
      const reads = async () => {
        const stats = (await admin.info('commandstats')) as string;
        return Number(/cmdstat_xread:calls=(\d+)/.exec(stats)?.[1] ?? 0);
      };
      const before = await reads();
      const started = performance.now();
      // One entry at a time, each awaited: unpaced, nearly every entry would be a read of its own.
      const perRun = 10;
      for (let i = 0; i < perRun; i++) for (const run of runs) await bus.publish(run, { type: 'n', i });
      // Counted while every stream is read (as runs end the pause shrinks with their number).
      const count = (await reads()) - before;
      const elapsed = performance.now() - started;
      for (const run of runs) await bus.publish(run, { type: 'end', final: true });
      const records = await Promise.all(followers);
      for (const got of records) expect(numbers(got)).toEqual(sequence(0, perRun));
      // At most one read per pause (and the one under way when the writes began).
      expect(count).toBeLessThanOrEqual(Math.ceil(elapsed / pauseMs) + 1);
      expect(count).toBeLessThan((streams * perRun) / 5);
    } finally {
      admin.disconnect();
      await bus.close();
      await stopPrivateRedis(redis);
    }
  }, 60_000);
});
