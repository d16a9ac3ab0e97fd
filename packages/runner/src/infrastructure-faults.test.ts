import { getRun, openDatabase } from '@agentry/db';
import { tenantWithAgent } from '@agentry/db/testing';
import { Requeue } from '@agentry/queue';
import { canStartPrivatePostgres, freePort, type PrivatePostgres, startPrivatePostgres } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunProcessor } from './execute-run.ts';

const can = canStartPrivatePostgres();
if (!can) console.warn('[infrastructure faults] NOTICE: initdb not installed: these runner tests are SKIPPED.');

describe.skipIf(!can)('a run meeting a database outage (a private Postgres)', () => {
  let pg: PrivatePostgres;
  let database: Awaited<ReturnType<typeof openDatabase>>;
  beforeAll(async () => {
    pg = await startPrivatePostgres(await freePort());
    database = await openDatabase({ kind: 'postgres', url: pg.url, maxConnections: 2 });
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    await pg?.destroy();
  });

  it('is put back after a growing backoff on every attempt, the last one included, and never failed', async () => {
    const { db } = database;
    const { startRun } = await tenantWithAgent(db);
    const run = await startRun();
    const processor = createRunProcessor({ db, models: {}, maxAttempts: 3 });
    const job = (attempt: number) => ({ id: run.id, data: { runId: run.id, tenantId: run.tenantId }, attempt });
    await pg.stop('fast');
    const delays: number[] = [];
    try {
      for (const attempt of [3, 3, 3]) {
        const error = await processor.process(job(attempt)).then(
          () => undefined,
          (e: unknown) => e,
        );
        // Not a failure that spends or ends the job's attempts: the job goes back for later.
        expect(error).toBeInstanceOf(Requeue);
        delays.push((error as Requeue).delayMs);
      }
    } finally {
      processor.close();
      await pg.start();
    }
    expect(delays).toEqual([1000, 2000, 4000]);
    // The run is as it was: running (claimed by the fixture), not failed; its next attempt resumes it.
    const stored = await getRun(db, run.tenantId, run.id).catch(() => getRun(db, run.tenantId, run.id));
    expect(stored?.status).toBe('running');
    expect(stored?.error).toBeNull();
  }, 60_000);
});
