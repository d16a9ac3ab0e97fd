import { freePort, redisServerInstalled, startPrivateRedis, stopPrivateRedis } from '@agentry/testkit';
import { describe, expect, it } from 'vitest';
import { createRedisRunControl } from './run-control.ts';

const hasRedisServer = redisServerInstalled('run-control-outage');

describe.skipIf(!hasRedisServer)('run control across a Redis outage', () => {
  it('subscribes while Redis is down without an unhandled rejection, and delivers once it is back', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('unhandledRejection', onUncaught);
    const port = await freePort();
    let redis = await startPrivateRedis(port);
    const url = `redis://127.0.0.1:${port}`;
    const receiver = createRedisRunControl({ redisUrl: url, prefix: 'outage' });
    const sender = createRedisRunControl({ redisUrl: url, prefix: 'outage' });
    try {
      await stopPrivateRedis(redis);
      const got: string[] = [];
      receiver.onCancel((runId) => got.push(runId));
      // Longer than ioredis takes to give up on a command with its default retry limit (20 reconnects, ~10.5 s).
      await new Promise((r) => setTimeout(r, 12_000));
      await expect(sender.cancel('lost')).rejects.toThrow();
      redis = await startPrivateRedis(port);
      for (let i = 0; i < 50 && got.length === 0; i++) {
        await sender.cancel('run-1').catch(() => {});
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(got[0]).toBe('run-1');
      expect(uncaught).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUncaught);
      await receiver.close();
      await sender.close();
      await stopPrivateRedis(redis);
    }
  }, 60_000);
});
