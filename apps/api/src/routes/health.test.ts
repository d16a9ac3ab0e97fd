import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiDeps } from '../deps.ts';
import { call, type Harness, startHarness } from '../test-support/harness.ts';
import { healthRoutes } from './health.ts';

describe('health routes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai');
  }, 60_000);
  afterAll(() => h?.close());

  it('/healthz and /readyz answer 200 when database and queue answer', async () => {
    expect(await call(h, 'GET', '/healthz')).toMatchObject({ status: 200, json: { status: 'ok' } });
    const ready = await call(h, 'GET', '/readyz');
    expect([ready.status, ready.json]).toEqual([
      200,
      // Which vector search knowledge bases use: the embedded mode loads pgvector into PGlite.
      { status: 'ready', checks: { database: 'ok', queue: 'ok' }, vector_search: 'pgvector' },
    ]);
  });

  // Only the dependencies fail here; the Redis-down case with a real redis-server is in
  // fault-tolerance.test.ts. Postgres is shared on this machine, so it cannot be stopped for a test.
  const withDeps = (pingDatabase: () => Promise<void>, ping: () => Promise<void>) =>
    healthRoutes({ pingDatabase, queue: { ping } } as unknown as ApiDeps);
  const fail = (message: string) => () => Promise.reject(new Error(message));
  const hang = () => new Promise<void>(() => {});

  it('a database that does not answer makes the API not ready (503), whatever the queue says', async () => {
    const res = await withDeps(fail('connection refused'), async () => {}).request('/readyz');
    expect([res.status, await res.json()]).toEqual([
      503,
      { status: 'not_ready', checks: { database: 'error: connection refused', queue: 'ok' } },
    ]);
  });

  it('a queue that does not answer leaves the API ready but degraded (200), within the probe timeout', async () => {
    const started = Date.now();
    const res = await withDeps(async () => {}, hang).request('/readyz');
    expect(Date.now() - started).toBeLessThan(2500);
    expect([res.status, await res.json()]).toEqual([
      200,
      { status: 'degraded', checks: { database: 'ok', queue: 'error: timeout' }, degraded: ['queue'] },
    ]);
  });

  it('a hung database gets one probe at a time: later checks share it and answer 503 at the bound', async () => {
    let probes = 0;
    let answer: () => void = () => {};
    const app = withDeps(
      () => {
        probes++;
        if (probes > 1) return Promise.resolve();
        return new Promise<void>((resolve) => {
          answer = resolve;
        });
      },
      async () => {},
    );
    const answers = await Promise.all([app.request('/readyz'), app.request('/readyz')]);
    const later = await app.request('/readyz');
    expect([...answers, later].map((r) => r.status)).toEqual([503, 503, 503]);
    expect(await later.json()).toMatchObject({ checks: { database: 'error: timeout' } });
    expect(probes).toBe(1);
    answer(); // the database answers at last: the next check probes again, and is ready
    await new Promise((r) => setImmediate(r));
    expect((await app.request('/readyz')).status).toBe(200);
    expect(probes).toBe(2);
  });
});
