import { randomBytes } from 'node:crypto';
import { availableServices, deleteRedisKeys, testServices } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Harness, startHarness } from '../test-support/harness.ts';

const LIMIT = 50;
const stores = availableServices().redis ? (['memory', 'redis'] as const) : (['memory'] as const);

describe.each(stores)('rate limit under a concurrent burst (%s counters)', (store) => {
  let h: Harness;
  let key: string;
  const prefix = `test-rl-${randomBytes(5).toString('hex')}`;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai', {
      env: {
        RATE_LIMIT_PER_MINUTE: String(LIMIT),
        ...(store === 'redis' ? { REDIS_URL: testServices.redisUrl, QUEUE_PREFIX: prefix } : {}),
      },
    });
    key = await createTenant(h);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    if (store === 'redis') await deleteRedisKeys(prefix);
  });

  it('admits at most the limit of 200 requests sent at once', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 200 }, () =>
        fetch(`${h.platform.url}/v1/agents`, { headers: { authorization: `Bearer ${key}` } }).then(async (res) => {
          await res.arrayBuffer();
          return res.status;
        }),
      ),
    );
    const admitted = statuses.filter((s) => s === 200).length;
    console.log(store, admitted, statuses.filter((s) => s === 429).length);
    expect(admitted).toBeLessThanOrEqual(LIMIT);
  }, 60_000);
});
