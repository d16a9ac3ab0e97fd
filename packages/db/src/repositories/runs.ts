// Runs as rows: read, listed, updated, deleted, the conversation's active ones, cancellation, and the
// sweeper's looks. A message's new run is `run-creation.ts`; an attempt's writes are `run-attempts.ts`.
import type { Message } from '@agentry/llm';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import { prebuilt } from '../prebuilt.ts';
import { messages, runs } from '../schema.ts';
import { type Tx, withSystemScope, withTenantScope } from '../tenant-scope.ts';
import type { StoredMessage } from './conversations.ts';
import { seqAfterLast } from './message-seq.ts';
import { earlierActiveRun, isActiveRun } from './run-status-sql.ts';

export type Run = typeof runs.$inferSelect;

/** A run as its attempts know it: every write is scoped to its tenant. */
export type RunRef = Pick<Run, 'id' | 'tenantId'>;

/** Appends messages produced by a run, and applies a run update, in one transaction (a checkpoint). */
export async function appendRunMessages(
  db: Db,
  scope: { tenantId: string; conversationId: string; runId: string },
  list: Message[],
  runUpdate: Partial<Omit<Run, 'id' | 'tenantId' | 'conversationId'>> = {},
): Promise<StoredMessage[]> {
  return withTenantScope(db, scope.tenantId, async (tx) => {
    const stored = await insertMessages(tx, scope, list);
    if (Object.keys(runUpdate).length > 0) {
      await tx
        .update(runs)
        .set(runUpdate)
        .where(and(eq(runs.id, scope.runId), eq(runs.tenantId, scope.tenantId)));
    }
    return stored;
  });
}

export async function getRun(db: Db, tenantId: string, runId: string): Promise<Run | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select()
      .from(runs)
      .where(and(eq(runs.id, runId), eq(runs.tenantId, tenantId))),
  );
  return row;
}

export async function updateRun(
  db: Db,
  tenantId: string,
  runId: string,
  update: Partial<Omit<Run, 'id' | 'tenantId' | 'conversationId'>>,
): Promise<void> {
  await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(runs)
      .set(update)
      .where(and(eq(runs.id, runId), eq(runs.tenantId, tenantId))),
  );
}

export async function listRunMessages(db: Db, tenantId: string, runId: string): Promise<StoredMessage[]> {
  return withTenantScope(db, tenantId, (tx) =>
    tx
      .select()
      .from(messages)
      .where(and(eq(messages.runId, runId), eq(messages.tenantId, tenantId)))
      .orderBy(asc(messages.seq)),
  );
}

/** Removes a run and the messages it wrote (used when a just-created run cannot be queued). */
export async function deleteRun(db: Db, tenantId: string, runId: string): Promise<void> {
  await withTenantScope(db, tenantId, async (tx) => {
    await tx.delete(messages).where(and(eq(messages.runId, runId), eq(messages.tenantId, tenantId)));
    await tx.delete(runs).where(and(eq(runs.id, runId), eq(runs.tenantId, tenantId)));
  });
}

/** Inserts messages after the conversation's last one (seq is gap-free and unique per conversation). */
async function insertMessages(
  tx: Tx,
  scope: { tenantId: string; conversationId: string; runId: string | null },
  list: Message[],
): Promise<StoredMessage[]> {
  if (list.length === 0) return [];
  return tx
    .insert(messages)
    .values(
      list.map((m, i) => ({
        id: newId(),
        ...scope,
        seq: seqAfterLast(scope.conversationId, i + 1),
        role: m.role,
        content: m.content,
      })),
    )
    .returning();
}

/**
 * A run with the id of its conversation's oldest active run (a conversation's runs go one at a
 * time, oldest first), in one statement: the worker looks at both before it claims the run.
 * Undefined when the run is not the tenant's (or gone); `oldestActiveRunId` is null when no run of
 * the conversation is active.
 *
 * @example
 * const found = await getRunWithTurn(db, { id: runId, tenantId });
 * if (found?.oldestActiveRunId && found.oldestActiveRunId !== found.run.id) defer(); // an earlier run goes first
 */
export async function getRunWithTurn(
  db: Db,
  ref: RunRef,
): Promise<{ run: Run; oldestActiveRunId: string | null } | undefined> {
  const [row] = await withTenantScope(db, ref.tenantId, (tx) => {
    const earlier = alias(runs, 'earlier');
    const oldest = tx
      .select({ id: earlier.id })
      .from(earlier)
      .where(
        and(
          eq(earlier.conversationId, runs.conversationId),
          eq(earlier.tenantId, runs.tenantId),
          isActiveRun(earlier.status),
        ),
      )
      .orderBy(asc(earlier.createdAt), asc(earlier.id))
      .limit(1);
    return tx
      .select({ run: runs, oldestActiveRunId: sql<string | null>`(${oldest})` })
      .from(runs)
      .where(and(eq(runs.id, ref.id), eq(runs.tenantId, ref.tenantId)));
  });
  return row;
}
/**
 * The conversation's active runs, oldest first. Handed to the driver at once, so in a transaction
 * it runs after the statements issued before it (and travels with them on Postgres).
 */
export async function activeRuns(db: Db, tenantId: string, conversationId: string): Promise<Run[]> {
  return withTenantScope(db, tenantId, (tx) => activeRunsOf(tx, { tenantId, conversationId }));
}

const activeRunsOf = prebuilt((db) =>
  db
    .select()
    .from(runs)
    .where(
      and(
        eq(runs.conversationId, sql.placeholder('conversationId')),
        eq(runs.tenantId, sql.placeholder('tenantId')),
        isActiveRun(runs.status),
      ),
    )
    .orderBy(asc(runs.createdAt), asc(runs.id)),
);

/** Marks a run for cancellation; returns the run as it is now (undefined when not the tenant's). */
export async function requestCancel(db: Db, tenantId: string, runId: string): Promise<Run | undefined> {
  const [run] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(runs)
      .set({ cancelRequestedAt: sql`coalesce(${runs.cancelRequestedAt}, now())` })
      .where(and(eq(runs.id, runId), eq(runs.tenantId, tenantId)))
      .returning(),
  );
  return run;
}

/** A run the sweeper looks at, and whether an earlier run of its conversation is still active. */
export type StaleRun = Run & { behindEarlierRun: boolean };

/**
 * Runs that look abandoned: queued or running, without a sign of life (heartbeat, or creation)
 * since `before`; the longest silent first, at most `limit` (read through `runs_active_idx`; no
 * index on the heartbeat, which would take the HOT update from every heartbeat). `behindEarlierRun`:
 * a queued run waiting for its conversation's earlier active run, which wakes it when it ends. System scope: the sweeper looks across tenants
 * (it then works on each run in its own tenant).
 */
export async function staleRuns(db: Db, before: Date, limit = 100): Promise<StaleRun[]> {
  const behind = sql<boolean>`exists (${earlierActiveRun(db)})`;
  const rows = await withSystemScope(db, 'stuck-run sweeper', (tx) =>
    tx
      .select({ run: runs, behindEarlierRun: behind })
      .from(runs)
      .where(
        and(
          sql`${runs.status} in ('queued', 'running')`,
          // An ISO string with a cast: the postgres driver cannot bind a Date inside raw SQL (PGlite can).
          sql`coalesce(${runs.heartbeatAt}, ${runs.createdAt}) < ${before.toISOString()}::timestamptz`,
        ),
      )
      .orderBy(sql`coalesce(${runs.heartbeatAt}, ${runs.createdAt})`)
      .limit(limit),
  );
  return rows.map((row) => ({ ...row.run, behindEarlierRun: Boolean(row.behindEarlierRun) }));
}

/**
 * Marks queued runs the sweeper found legitimately waiting (behind their conversation's earlier
 * run, or parked by the scheduler) as seen, so its next passes look at other runs first: each pass
 * reads a bounded page, oldest sign of life first, whatever the backlog.
 *
 * @example
 * await touchWaitingRuns(db, tenantId, [run.id]);
 */
export async function touchWaitingRuns(db: Db, tenantId: string, runIds: string[]): Promise<void> {
  if (runIds.length === 0) return;
  await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(runs)
      .set({ heartbeatAt: sql`now()` })
      .where(and(inArray(runs.id, runIds), eq(runs.tenantId, tenantId), eq(runs.status, 'queued'))),
  );
}
