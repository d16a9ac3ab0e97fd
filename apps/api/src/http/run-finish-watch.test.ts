import { finishedRuns, finishRunUnfenced, listenForFinishedRuns, type Run, withTenantScope } from '@agentry/db';
import { tenantWithAgent } from '@agentry/db/testing';
import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunFinishWatch, type RunFinishWatch, startRunFinishWatch } from './run-finish-watch.ts';

describe.each(testDatabaseKinds())('streams waiting on the database for their run to end, on %s', (kind) => {
  let database: TestDatabase;
  let watch: RunFinishWatch;
  let startRun: () => Promise<Run>;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    watch = await startRunFinishWatch(database, { reconcileMs: 3_600_000 });
    ({ startRun } = await tenantWithAgent(database.db));
  });
  afterAll(async () => {
    await watch?.close();
    await database?.destroy();
  });

  it('notifies a run’s id when it reaches a final status, once, and never for a rollback', async () => {
    const heard: string[] = [];
    const stop = await listenForFinishedRuns(database, { notify: (id) => heard.push(id) });
    try {
      const [rolledBack, finished] = [await startRun(), await startRun()];
      let updated = false;
      await withTenantScope(database.db, rolledBack.tenantId, async (tx) => {
        updated = await finishRunUnfenced(tx, rolledBack, { status: 'failed' });
        throw new Error('rolled back');
      }).catch(() => {});
      expect(updated).toBe(true);
      await finishRunUnfenced(database.db, finished, { status: 'completed' });
      const deadline = Date.now() + 10_000;
      while (!heard.includes(finished.id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(heard).toEqual([finished.id]);
    } finally {
      await stop();
    }
  });

  it('wakes every stream of a run when it ends, and at once when it had ended already', async () => {
    const run = await startRun();
    const signal = new AbortController().signal;
    const waits = [watch.wait(run.id, signal), watch.wait(run.id, signal)];
    await new Promise((r) => setTimeout(r, 50));
    expect(watch.waiting).toBe(2);
    await finishRunUnfenced(database.db, run, { status: 'failed', error: errorOf('boom') });
    for (const ended of await Promise.all(waits))
      expect([ended?.id, ended?.status, ended?.error?.code]).toEqual([run.id, 'failed', 'boom']);
    expect((await watch.wait(run.id, signal))?.status).toBe('failed');
    expect(watch.waiting).toBe(0);
  });

  it('an aborted stream stops waiting; a lost notification is made up by the reconciliation', async () => {
    const [abandoned, unheard] = [await startRun(), await startRun()];
    const controller = new AbortController();
    const waiting = watch.wait(abandoned.id, controller.signal);
    controller.abort();
    expect(await waiting).toBeUndefined();
    expect(watch.waiting).toBe(0);
    // No listener at all: only the reconciliation can tell.
    const deaf = createRunFinishWatch({ read: (ids) => finishedRuns(database.db, ids), reconcileMs: 50 });
    const ended = deaf.wait(unheard.id, new AbortController().signal);
    await new Promise((r) => setTimeout(r, 100));
    await finishRunUnfenced(database.db, unheard, { status: 'cancelled' });
    expect((await ended)?.status).toBe('cancelled');
    await deaf.close();
  });
});

function errorOf(code: string) {
  return { code, message: code, category: 'system', retryable: false };
}
