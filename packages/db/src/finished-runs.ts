/**
 * Runs reaching a final status, as they do. Migration `0015_run_final_notify` puts a trigger on
 * `runs` that `pg_notify`s {@link RUN_FINISHED_CHANNEL} with the run's id when its status becomes
 * final (on commit; a rollback notifies nobody). Event streams whose bus is unreachable wait here.
 */
import { and, inArray } from 'drizzle-orm';
import type { Database, Db, ListenHandlers } from './database.ts';
import { isId } from './ids.ts';
import type { Run } from './repositories/runs.ts';
import { FINAL_RUN_STATUSES, runs } from './schema.ts';
import { withSystemScope } from './tenant-scope.ts';

export const RUN_FINISHED_CHANNEL = 'agentry_run_finished';

/**
 * Listens for finished runs (the run's id per notification) until the returned function is
 * called; `lost`/`resumed` as for {@link Database.listen}: notifications may be missed in between.
 *
 * @example
 * const stop = await listenForFinishedRuns(database, { notify: (runId) => wake(runId) });
 */
export function listenForFinishedRuns(database: Database, handlers: ListenHandlers): Promise<() => Promise<void>> {
  return database.listen(RUN_FINISHED_CHANNEL, {
    ...handlers,
    notify: (payload) => {
      if (isId(payload)) handlers.notify(payload);
    },
  });
}

/**
 * Of these runs (any tenant's), the ones with a final status: one statement for every stream
 * waiting on the database. System scope: the streams of one API process serve every tenant; the
 * caller hands each run only to streams of that run, which were authorised for it.
 *
 * @example
 * const ended = await finishedRuns(db, ['0190…', '0190…']);
 */
export async function finishedRuns(db: Db, runIds: readonly string[]): Promise<Run[]> {
  const ids = runIds.filter(isId);
  if (ids.length === 0) return [];
  return withSystemScope(db, 'event streams waiting on the database', (tx) =>
    tx
      .select()
      .from(runs)
      .where(and(inArray(runs.id, ids), inArray(runs.status, [...FINAL_RUN_STATUSES]))),
  );
}
