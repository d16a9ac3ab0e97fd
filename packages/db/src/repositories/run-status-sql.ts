// Which runs are active, as SQL the partial index `runs_conversation_active_idx` can serve.
import { type AnyColumn, and, eq, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../database.ts';
import { type RunStatus, runs } from '../schema.ts';

/** The statuses of a run not yet final, and the SQL that picks such runs out (shared by the run repositories). */
export const ACTIVE: RunStatus[] = ['queued', 'running', 'waiting'];

/**
 * `status in ('queued', 'running', 'waiting')` with the statuses written into the statement, not
 * bound as parameters: only then can a generic plan (a prepared statement's, after five runs) use
 * the partial index `runs_conversation_active_idx`. Bound, the planner combined the conversation's
 * index with the tenant's (`runs_tenant_idx`), reading every run of the tenant on each claim and
 * message (thousands of index entries per run in the benchmark, growing without bound).
 */
export function isActiveRun(status: AnyColumn): SQL {
  return sql`${status} in (${ACTIVE_LITERALS})`;
}

// The statuses are this module's constants, never input: safe to write into the statement.
const ACTIVE_LITERALS = sql.raw(ACTIVE.map((status) => `'${status}'`).join(', '));

/** `status = 'queued'`, written into the statement for the same reason as `isActiveRun`. */
export function isQueuedRun(status: AnyColumn): SQL {
  return sql`${status} = 'queued'`;
}

/**
 * An earlier active run of the same conversation as the `runs` row of the outer statement: while
 * one exists, that run waits its turn (a conversation's runs go one at a time, oldest first).
 */
export function earlierActiveRun(db: Db) {
  const earlier = alias(runs, 'earlier');
  return db
    .select({ one: sql`1` })
    .from(earlier)
    .where(
      and(
        eq(earlier.conversationId, runs.conversationId),
        eq(earlier.tenantId, runs.tenantId),
        isActiveRun(earlier.status),
        sql`(${earlier.createdAt}, ${earlier.id}) < (${runs.createdAt}, ${runs.id})`,
      ),
    );
}
