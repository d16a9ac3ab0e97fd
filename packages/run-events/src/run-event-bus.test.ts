import { randomBytes } from 'node:crypto';
import { availableServices, deleteRedisKeys, testServices } from '@agentry/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryBus } from './memory-bus.ts';
import { createRedisBus } from './redis-bus.ts';
import type { RunEventBus, RunEventRecord } from './types.ts';

const prefix = `test-${randomBytes(6).toString('hex')}`;
const buses: Array<[string, () => RunEventBus]> = [
  ['memory', () => createMemoryBus({ maxEventsPerRun: 50, ttlSeconds: 60, finishedTtlSeconds: 30 })],
];
if (availableServices().redis) {
  buses.push([
    'redis',
    () =>
      createRedisBus({
        redisUrl: testServices.redisUrl,
        prefix,
        blockMs: 200,
        limits: { maxEventsPerRun: 50, ttlSeconds: 60, finishedTtlSeconds: 30 },
      }),
  ]);
} else {
  console.warn('[run-events] NOTICE: Redis unavailable, the Redis bus suite is skipped.');
}
afterAll(() => deleteRedisKeys(prefix).catch(() => {}));

async function collect(iterable: AsyncIterable<RunEventRecord>): Promise<RunEventRecord[]> {
  const out: RunEventRecord[] = [];
  for await (const record of iterable) out.push(record);
  return out;
}

describe.each(buses)('run event bus: %s', (_name, make) => {
  it('replays from the start, follows live events, and ends at a final event', async () => {
    const bus = make();
    const runId = `run-${randomBytes(4).toString('hex')}`;
    expect(await bus.has(runId)).toBe(false);
    await bus.publish(runId, { type: 'a' });
    expect(await bus.has(runId)).toBe(true);
    const all = collect(bus.subscribe(runId));
    await bus.publish(runId, { type: 'b' });
    await new Promise((r) => setTimeout(r, 50));
    await bus.publish(runId, { type: 'done', final: true });
    await bus.publish(runId, { type: 'after-final' });
    expect((await all).map((r) => r.event.type)).toEqual(['a', 'b', 'done']);
    await bus.close();
  });

  it('resumes after an id with every later event exactly once, in order', async () => {
    const bus = make();
    const runId = `run-${randomBytes(4).toString('hex')}`;
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await bus.publish(runId, { type: 'delta', i }));
    const resumed = collect(bus.subscribe(runId, { after: ids[3] }));
    for (let i = 10; i < 15; i++) await bus.publish(runId, { type: 'delta', i });
    await bus.publish(runId, { type: 'end', final: true });
    const got = await resumed;
    expect(got.map((r) => r.event.i ?? 'end')).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 'end']);
    expect(new Set(got.map((r) => r.id)).size).toBe(got.length);
    await bus.close();
  });

  it('stops a subscription when its signal aborts', async () => {
    const bus = make();
    const controller = new AbortController();
    const pending = collect(bus.subscribe('quiet-run', { signal: controller.signal }));
    setTimeout(() => controller.abort(), 100);
    expect(await pending).toEqual([]);
    await bus.close();
  });

  it('keeps a bounded number of events per run', async () => {
    const bus = make();
    const runId = `run-${randomBytes(4).toString('hex')}`;
    for (let i = 0; i < 300; i++) await bus.publish(runId, { type: 'x', i });
    await bus.publish(runId, { type: 'end', final: true });
    const kept = await collect(bus.subscribe(runId));
    // Redis trims approximately (MAXLEN ~), in whole macro-nodes; memory trims exactly.
    expect(kept.length).toBeLessThan(250);
    expect(kept.at(-1)?.event.type).toBe('end');
    await bus.close();
  });
});

describe.runIf(availableServices().redis)('redis bus expiry', () => {
  it('keeps a running run’s stream for the run TTL and a finished one only briefly', async () => {
    const bus = createRedisBus({
      redisUrl: testServices.redisUrl,
      prefix,
      limits: { maxEventsPerRun: 50, ttlSeconds: 60, finishedTtlSeconds: 30 },
    });
    const runId = `run-${randomBytes(4).toString('hex')}`;
    await bus.publish(runId, { type: 'a' });
    await bus.publish(runId, { type: 'b' });
    const { Redis } = await import('ioredis');
    const redis = new Redis(testServices.redisUrl);
    const ttlRunning = await redis.ttl(`${prefix}:run-events:${runId}`);
    await bus.publish(runId, { type: 'end', final: true });
    await new Promise((r) => setTimeout(r, 50));
    const ttlFinished = await redis.ttl(`${prefix}:run-events:${runId}`);
    redis.disconnect();
    expect(ttlRunning).toBeGreaterThan(30);
    expect(ttlFinished).toBeLessThanOrEqual(30);
    expect(ttlFinished).toBeGreaterThan(0);
    await bus.close();
  });
});
