import { randomBytes } from 'node:crypto';
import { availableServices, deleteRedisKeys, testServices } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Harness, startHarness } from '../test-support/harness.ts';

const LIMIT = 50;
const stores = availableServices().redis ? (['memory', 'redis'] as const) : (['memory'] as const);

// The embedded variant (memory counters) and real Redis shared by API processes. The Redis one
// starts its burst right after start-up, when a counter taken before the connection was ready
// used to go to the per-process fallback and admit more than the limit.
describe.each(stores)('rate limit under a concurrent burst (%s counters)', (store) => {
  let h: Harness;
  let key: string;
  const prefix = `test-rl-${randomBytes(5).toString('hex')}`;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai', {
      env: {
        RATE_LIMIT_PER_MINUTE: String(LIMIT),
        // Every request of a burst waits for its database turn instead of being shed with a 503
        // before the limiter counts it (the machine may be slow).
        ADMISSION_MAX_QUEUED: '1000',
        ADMISSION_MAX_WAIT_MS: '60000',
        ...(store === 'redis' ? { REDIS_URL: testServices.redisUrl, QUEUE_PREFIX: prefix } : {}),
      },
    });
    key = await createTenant(h);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    if (store === 'redis') await deleteRedisKeys(prefix);
  });

  it('admits at most the limit of 200 requests sent at once, and tells the rest when to retry', async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, () =>
        fetch(`${h.platform.url}/v1/agents`, { headers: { authorization: `Bearer ${key}` } }).then(async (res) => {
          await res.arrayBuffer();
          return { status: res.status, retryAfter: Number(res.headers.get('retry-after')) };
        }),
      ),
    );
    // A fresh counter: exactly the limit gets through (none more, and the limiter is not just shut).
    expect(answers.filter((a) => a.status === 200)).toHaveLength(LIMIT);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(200 - LIMIT);
    for (const { retryAfter } of refused) expect(retryAfter).toBeGreaterThanOrEqual(1);
    for (const { retryAfter } of refused) expect(retryAfter).toBeLessThanOrEqual(60);
  }, 60_000);

  it('counts the OpenAI-compatible routes against the same allowance as the rest of the API', async () => {
    const other = await createTenant(h, 'Other');
    const burst = (path: string) =>
      Array.from({ length: 40 }, () =>
        fetch(`${h.platform.url}${path}`, { headers: { authorization: `Bearer ${other}` } }).then(async (res) => {
          await res.arrayBuffer();
          return res.status;
        }),
      );
    const statuses = await Promise.all([...burst('/v1/agents'), ...burst('/v1/models')]);
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
  }, 60_000);
});
