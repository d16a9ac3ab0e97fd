import { randomBytes } from 'node:crypto';
import { availableServices, deleteRedisKeys, testServices } from '@agentry/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrderedSender } from './ordered-sender.ts';

const prefix = `test-${randomBytes(6).toString('hex')}`;

describe.runIf(availableServices().redis)('ordered sender', () => {
  let redis: Redis;
  const writes: number[] = [];
  beforeAll(() => {
    redis = new Redis(testServices.redisUrl, { enableAutoPipelining: false });
    // Counts what goes out per batch: each `pipeline()` is one write of its commands.
    const pipeline = redis.pipeline.bind(redis);
    redis.pipeline = ((...args: Parameters<Redis['pipeline']>) => {
      const created = pipeline(...args);
      const exec = created.exec.bind(created);
      created.exec = ((...execArgs: Parameters<typeof exec>) => {
        writes.push(created.length);
        return exec(...execArgs);
      }) as typeof created.exec;
      return created;
    }) as Redis['pipeline'];
  });
  afterAll(async () => {
    await deleteRedisKeys(prefix).catch(() => {});
    redis?.disconnect();
  });

  it('writes the first command at once and the ones given meanwhile together, in order', async () => {
    const sender = createOrderedSender(redis);
    const key = `${prefix}:order`;
    writes.length = 0;
    const ids = await Promise.all(
      Array.from({ length: 20 }, (_, n) => sender.send('xadd', [key, '*', 'n', n])) as Array<Promise<string>>,
    );
    // The first alone (nothing was in flight), the other 19 in one write once it was answered.
    expect(writes).toEqual([1, 19]);
    const entries = await redis.xrange(key, '-', '+');
    expect(entries.map(([id, fields]) => [id, fields[1]])).toEqual(ids.map((id, n) => [id, String(n)]));
  });

  it('fails only the command that failed, and keeps sending', async () => {
    const sender = createOrderedSender(redis);
    const key = `${prefix}:errors`;
    const first = sender.send('set', [key, 'a']);
    const wrong = sender.send('xadd', [key, '*', 'n', 1]); // a string, not a stream: WRONGTYPE
    const after = sender.send('get', [key]);
    await expect(first).resolves.toBe('OK');
    await expect(wrong).rejects.toThrow(/WRONGTYPE/);
    await expect(after).resolves.toBe('a');
    await expect(sender.send('del', [key])).resolves.toBe(1);
  });
});
