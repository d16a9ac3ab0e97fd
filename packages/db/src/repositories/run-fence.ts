// The fencing check every attempt write starts with: a newer attempt's fence makes an older one stale.
import { type AppError, errors } from '@agentry/errors';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { prebuilt } from '../prebuilt.ts';
import { runs } from '../schema.ts';
import type { Tx } from '../tenant-scope.ts';
import { ACTIVE } from './run-status-sql.ts';
import type { Run } from './runs.ts';

/** Thrown when an attempt's fencing number is no longer current: a newer attempt owns the run. */
export function staleAttempt(runId: string): AppError {
  return errors.system('stale_attempt', `Run ${runId} is owned by a newer attempt; this attempt stops without writing`);
}

/**
 * Locks the run row and checks the fence; every fenced write starts with this. The check is made
 * by the database (`agentry_assert` raises when the fenced update matched no row), so a stale
 * fence aborts the transaction even when its COMMIT was sent ahead (`CommitAhead`); it is handed to
 * the driver at once (`execute()`), so the write the caller issues right after it goes out in the
 * same round trip and still runs after it. Rejects with `stale_attempt`.
 */
export function assertFence(
  tx: Tx,
  runId: string,
  fence: number,
  update: Partial<Run> = {},
  finishing = false,
): Promise<void> {
  const key = `${runId}:${fence}`;
  const earlier = fencesChecked.get(tx)?.get(key);
  const updates = Object.keys(update).length > 0;
  // Several fenced writes in one transaction (an attempt batching its writes) need one check: the
  // first holds the row lock until commit, and its failure fails the transaction.
  if (earlier && !updates) return earlier;
  const check = fenceCheck(update, finishing)(tx, { ...update, runId, fence }).then(
    () => {},
    (error: unknown) => {
      throw isStale(error) ? staleAttempt(runId) : error;
    },
  );
  const checked = fencesChecked.get(tx) ?? new Map<string, Promise<void>>();
  fencesChecked.set(tx, checked.set(key, check));
  return check;
}

/**
 * Waits for a fence check and the write sent behind it. When the check failed the write fails too
 * (the transaction is aborted), and which rejection comes first is a matter of microtasks: the
 * check's `stale_attempt` is the one reported.
 */
export async function behindFence<T>(fenced: Promise<void>, write: Promise<T>): Promise<T> {
  try {
    const [, written] = await Promise.all([fenced, write]);
    return written;
  } catch (error) {
    await fenced;
    throw error;
  }
}

/** What `agentry_assert` says when a fence check fails (SQLSTATE AG001, migration 0012). */
const STALE = 'stale_attempt';

/** The database's own error, under drizzle's "Failed query" wrapper. */
function isStale(error: unknown): boolean {
  const { code, message, cause } = (error ?? {}) as { code?: unknown; message?: unknown; cause?: unknown };
  return (code === 'AG001' && message === STALE) || (cause !== undefined && isStale(cause));
}

/**
 * The fence check for an update of these columns (none: the fence itself, a no-op that locks the
 * row), prebuilt per set of columns; a column set to null is part of the shape, not a value (a
 * placeholder would store a JSON null in a jsonb column). `finishing`: the run's final update,
 * which also needs an active status and stamps `finished_at`.
 */
function fenceCheck(update: Partial<Run>, finishing: boolean) {
  const columns = Object.entries(update)
    .map(([column, value]) => (value === null ? `${column}=null` : column))
    .sort()
    .join(',');
  const shape = finishing ? `${columns}|finish` : columns;
  let check = fenceChecks.get(shape);
  if (!check) {
    check = prebuilt((db) => {
      const set = Object.fromEntries(
        Object.entries(update).map(([column, value]) => [column, value === null ? null : sql.placeholder(column)]),
      );
      const finish = { finishedAt: sql`now()`, heartbeatAt: sql`now()` };
      const write = db
        .update(runs)
        .set(finishing ? { ...set, ...finish } : columns ? set : { fence: sql.placeholder('fence') })
        .where(
          and(
            eq(runs.id, sql.placeholder('runId')),
            eq(runs.fence, sql.placeholder('fence')),
            finishing ? inArray(runs.status, ACTIVE) : undefined,
          ),
        )
        .returning({ id: runs.id });
      const fenced = db.$with('fenced', { id: runs.id }).as(write.getSQL());
      return db
        .with(fenced)
        .select({ ok: sql<boolean>`agentry_assert(count(*) = 1, ${STALE})` })
        .from(fenced);
    });
    // Bounded: the attempts' writes update a handful of column sets.
    if (fenceChecks.size < 32) fenceChecks.set(shape, check);
  }
  return check;
}

const fenceChecks = new Map<string, (db: Db, values: Record<string, unknown>) => Promise<unknown>>();

/** The fence checks each open transaction has sent, by `<run id>:<fence>`. */
const fencesChecked = new WeakMap<Tx, Map<string, Promise<void>>>();
