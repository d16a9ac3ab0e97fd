import { randomBytes } from 'node:crypto';
import { availableServices, freePort, startPrivateRedis, stopPrivateRedis } from '@agentry/testkit';
import { describe, expect, it } from 'vitest';
import { createRedisBus } from './redis-bus.ts';
import { RunEventBusUnavailableError, type RunEventRecord } from './types.ts';

const ready = availableServices().redis;
if (!ready) console.warn('[bus-unavailable] NOTICE: redis-server unavailable: lost-connection tests are SKIPPED.');

const prefix = `test-${randomBytes(6).toString('hex')}`;
const limits = { maxEventsPerRun: 1000, ttlSeconds: 60, finishedTtlSeconds: 30 };
const newRun = () => `run-${randomBytes(4).toString('hex')}`;

/** Every record until the iteration ends, and how it ended (undefined = normally). */
async function drain(iterable: AsyncIterable<RunEventRecord>, into: RunEventRecord[]): Promise<unknown> {
  try {
    for await (const record of iterable) into.push(record);
    return undefined;
  } catch (error) {
    return error;
  }
}

describe.runIf(ready)('redis bus: subscriptions that end when the bus is unavailable (a private redis-server)', () => {
  it('end with RunEventBusUnavailableError when Redis dies (live or replaying), and at once while it is down', async () => {
    const port = await freePort();
    const redis = await startPrivateRedis(port);
    const bus = createRedisBus({ redisUrl: `redis://127.0.0.1:${port}`, prefix, limits, blockMs: 1000 });
    try {
      const runs = [newRun(), newRun(), newRun()];
      const received = runs.map(() => [] as RunEventRecord[]);
      const outcomes = runs.map((run, n) => drain(bus.subscribe(run, { endWhenUnavailable: true }), received[n]!));
      for (const run of runs) await bus.publish(run, { type: 'delta' });
      const deadline = Date.now() + 5000;
      while (received.some((r) => r.length === 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await stopPrivateRedis(redis);
      for (const outcome of outcomes) expect(await outcome).toBeInstanceOf(RunEventBusUnavailableError);
      expect(received.map((r) => r.length)).toEqual([1, 1, 1]);
      // Opened while Redis is away: no waiting for it to come back.
      expect(await drain(bus.subscribe(runs[0]!, { endWhenUnavailable: true }), [])).toBeInstanceOf(
        RunEventBusUnavailableError,
      );
      expect(bus.stats().subscriptions).toBe(0);
    } finally {
      // Closes with Redis still away: nothing waits for it to come back.
      await bus.close();
      await stopPrivateRedis(redis);
    }
  }, 30_000);
});
