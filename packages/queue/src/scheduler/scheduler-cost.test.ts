import { freePort, redisServerInstalled, startPrivateRedis, stopPrivateRedis } from '@agentry/testkit';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { RunJobData } from '../types.ts';
import { createRedisScheduler } from './redis-scheduler.ts';

const hasRedisServer = redisServerInstalled('scheduler cost');

/** Every command the server ran so far, those run by Lua scripts included (INFO commandstats). */
async function commands(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  return [...info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)]
    .filter(([, name]) => name !== 'info')
    .reduce((sum, [, , calls]) => sum + Number(calls), 0);
}

const run = (runId: string): RunJobData => ({ runId, tenantId: 'T', conversationId: `c-${runId}` });

// Issue 23: a run with a free slot is the common case, and every command a scheduler script runs
// counts on Redis. A private server, so the count is this test's alone.
describe.skipIf(!hasRedisServer)('run scheduler cost on Redis', () => {
  it('a run that finds a free slot costs at most 13 commands from submit to release', async () => {
    const port = await freePort();
    const server = await startPrivateRedis(port);
    const redisUrl = `redis://127.0.0.1:${port}`;
    const admin = new Redis(redisUrl);
    const dispatched: string[] = [];
    const scheduler = createRedisScheduler({
      redisUrl,
      perTenant: 2,
      dispatch: async (_jobId, data) => {
        dispatched.push(data.runId);
      },
    });
    try {
      // Warm: the scripts are loaded (the first EVALSHA misses and sends the script) and a
      // tenant has run before.
      await scheduler.submit(run('warm'));
      await scheduler.acquire(run('warm'));
      await scheduler.release(run('warm'));
      const before = await commands(admin);
      for (const id of ['r1', 'r2', 'r3']) {
        expect(await scheduler.submit(run(id))).toBe('dispatched');
        expect(await scheduler.acquire(run(id))).toBe(true);
        await scheduler.release(run(id));
      }
      const perRun = ((await commands(admin)) - before) / 3;
      // 3 EVALSHA and the 10 commands they run: ZSCORE, ZREMRANGEBYSCORE, 2 ZCARD, ZADD to take the slot;
      // ZSCORE, ZADD to hold it; ZREM, SREM, EXISTS to let it go.
      expect(perRun).toBeLessThanOrEqual(13);
      expect(dispatched).toEqual(['warm', 'r1', 'r2', 'r3']);
      expect(await scheduler.backlog()).toBe(0);
    } finally {
      await scheduler.close();
      admin.disconnect();
      await stopPrivateRedis(server);
    }
  });
});
