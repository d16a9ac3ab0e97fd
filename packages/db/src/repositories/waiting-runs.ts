// Runs waiting for people: parked, answered (queued again), expired.
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { agentVersions, runs, toolCalls } from '../schema.ts';
import { withSystemScope, withTenantScope } from '../tenant-scope.ts';
import { ACTIVE } from './run-status-sql.ts';
import type { Run, RunRef } from './runs.ts';
import { storedWebhookTargets } from './stored-webhook-targets.ts';
import { recordRunWebhooks, type WebhookTarget } from './webhook-deliveries.ts';

/** A waiting run past its deadline, with the wait it was allowed (seconds). */
export type ExpiredWaitingRun = Run & { waitingTimeoutSeconds: number };

/**
 * Waiting runs nobody answered in time: parked (a run's `heartbeat_at` is set when it parks) for
 * longer than its agent version's `limits.waiting_timeout`, or `defaultTimeoutSeconds` when the
 * config sets none. Compared on the database clock, which wrote the parking time.
 * System scope: the sweeper looks across tenants (each run is then ended in its own tenant's scope).
 *
 * @example
 * for (const run of await expiredWaitingRuns(db, 86_400)) await finishRunFenced(db, run, run.fence, …, ['waiting']);
 */
export async function expiredWaitingRuns(
  db: Db,
  defaultTimeoutSeconds: number,
  limit = 100,
): Promise<ExpiredWaitingRun[]> {
  const configured = sql`${agentVersions.config} -> 'limits' -> 'waiting_timeout'`;
  const timeout = sql<number>`coalesce(case when json_typeof(${configured}) = 'number' then (${configured})::text::double precision end, ${defaultTimeoutSeconds}::double precision)`;
  const rows = await withSystemScope(db, 'waiting-run expiry', (tx) =>
    tx
      .select({ run: runs, waitingTimeoutSeconds: timeout.mapWith(Number) })
      .from(runs)
      .leftJoin(
        agentVersions,
        and(
          eq(agentVersions.tenantId, runs.tenantId),
          eq(agentVersions.agentId, runs.agentId),
          eq(agentVersions.version, runs.agentVersion),
        ),
      )
      .where(
        and(
          eq(runs.status, 'waiting'),
          sql`coalesce(${runs.heartbeatAt}, ${runs.createdAt}) < now() - make_interval(secs => ${timeout})`,
        ),
      )
      .orderBy(asc(runs.createdAt))
      .limit(limit),
  );
  return rows.map((row) => ({ ...row.run, waitingTimeoutSeconds: row.waitingTimeoutSeconds }));
}

/**
 * Pauses a run for a person's answer (client tool or approval), while the fence is current.
 * `pending` (the calls waiting for an answer) goes into the `run.waiting` webhook payload;
 * `webhooks`: the agent's webhook targets when the caller has the compiled agent (read from the
 * stored config otherwise).
 */
export async function markRunWaiting(
  db: Db,
  run: RunRef,
  fence: number,
  pending: readonly unknown[] = [],
  options: { webhooks?: readonly WebhookTarget[] | null } = {},
): Promise<boolean> {
  const rows = await withTenantScope(db, run.tenantId, async (tx) => {
    const updated = await tx
      .update(runs)
      // The heartbeat marks when it parked: the waiting-run expiry counts from it.
      .set({ status: 'waiting', heartbeatAt: sql`now()` })
      .where(and(eq(runs.id, run.id), eq(runs.fence, fence), inArray(runs.status, ACTIVE)))
      .returning();
    if (updated[0]) {
      const targets = options.webhooks === undefined ? await storedWebhookTargets(tx, updated[0]) : options.webhooks;
      await recordRunWebhooks(tx, updated[0], targets ?? [], { pending });
    }
    return updated;
  });
  return rows.length > 0;
}

export type HumanAnswer =
  | { toolCallId: string; name: string; kind: 'client'; output: unknown; isError: boolean }
  | { toolCallId: string; name: string; kind: 'approval'; decision: 'approve' | 'decline' };

/**
 * Records people's answers to a waiting run's calls and queues the run again, in one transaction.
 * False when the run is not waiting (already answered, cancelled, …).
 */
export async function answerWaitingRun(
  db: Db,
  run: RunRef,
  answers: HumanAnswer[],
  endUser?: string,
): Promise<boolean> {
  return withTenantScope(db, run.tenantId, async (tx) => {
    const resumed = await tx
      .update(runs)
      // A fresh heartbeat: queued again now, not abandoned since it parked (stuck-run sweeper).
      // `endUser`: the answering request's verified end user, sealed, replaces the run's own.
      .set({ status: 'queued', heartbeatAt: sql`now()`, ...(endUser ? { endUser } : {}) })
      .where(and(eq(runs.id, run.id), eq(runs.tenantId, run.tenantId), eq(runs.status, 'waiting')))
      .returning({ id: runs.id });
    if (resumed.length === 0) return false;
    for (const answer of answers) {
      await tx
        .insert(toolCalls)
        .values({
          runId: run.id,
          tenantId: run.tenantId,
          toolCallId: answer.toolCallId,
          name: answer.name,
          idempotencyKey: `${run.id}:${answer.toolCallId}`,
          ...(answer.kind === 'client'
            ? { status: 'completed' as const, output: answer.output, isError: answer.isError, completedAt: sql`now()` }
            : { status: answer.decision === 'approve' ? ('approved' as const) : ('declined' as const) }),
        })
        .onConflictDoNothing();
    }
    return true;
  });
}
