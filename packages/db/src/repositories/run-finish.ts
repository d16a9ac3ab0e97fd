// A run's final status: fenced (an attempt's end) or unfenced (cancellation, sweeps), with the webhook
// outbox rows in the same transaction.
import { AppError } from '@agentry/errors';
import type { Message } from '@agentry/llm';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { prebuilt } from '../prebuilt.ts';
import { type RunStatus, runs } from '../schema.ts';
import { withTenantScope } from '../tenant-scope.ts';
import { insertRunMessages } from './run-attempts.ts';
import { assertFence, behindFence, staleAttempt } from './run-fence.ts';
import { ACTIVE, isQueuedRun } from './run-status-sql.ts';
import { completeToolCall } from './run-tool-calls.ts';
import type { Run, RunRef } from './runs.ts';
import { storedWebhookTargets } from './stored-webhook-targets.ts';
import { hasWebhookFor, recordRunWebhooks, type WebhookTarget } from './webhook-deliveries.ts';

/**
 * Ends the run with `status` while the fence is current (and the run in one of `fromStatuses`);
 * false when stale or already final. The waiting-run expiry passes `['waiting']` with the fence the
 * run parked with, so a run answered (or parked again by a newer attempt) meanwhile is left alone.
 */
export async function finishRunFenced(
  db: Db,
  run: RunRef,
  fence: number,
  update: {
    status: RunStatus;
    error?: Run['error'];
    usage?: Run['usage'];
    toolCallCount?: number;
    steps?: Run['steps'];
  },
  fromStatuses: RunStatus[] = ACTIVE,
): Promise<boolean> {
  const rows = await withTenantScope(db, run.tenantId, async (tx) => {
    const updated = await runFinish({ ...update, ...endUserCleared }, fromStatuses)(tx, {
      ...update,
      runId: run.id,
      fence,
    });
    // The webhook outbox: committed with the status, or not at all.
    if (updated[0]) await recordRunWebhooks(tx, updated[0], await storedWebhookTargets(tx, updated[0]));
    return updated;
  });
  return rows.length > 0;
}

/**
 * A final status clears the run's sealed end-user values (`runs.end_user`): nothing runs with them
 * any more, so the claims and the token are not kept. Null is part of the prebuilt statement's shape.
 */
const endUserCleared = { endUser: null } as const;

/** What an attempt put off until its end: written with its final status, or not at all. */
export interface FinalWrites {
  messages: Message[];
  completions: Array<{ toolCallId: string; result: { output: unknown; isError: boolean; errorCode?: string } }>;
}

type FinalUpdate = Parameters<typeof finishRunFenced>[3];

/**
 * An attempt's last transaction: what it put off (`writes`), its final status (fenced, from an
 * active status, as `finishRunFenced`) and the id of the conversation's next queued run, all or
 * nothing. `webhooks` is the run's agent version's webhook targets, already parsed, when the caller
 * has the compiled agent (its `config.webhooks`; null: none); without them they are read from the
 * stored config (`storedWebhookTargets`). When none is subscribed to the status, every check is the database's (a failed fence or
 * status rolls everything back) and the COMMIT is sent ahead — one round trip on Postgres. Otherwise
 * the webhook outbox rows are written too, as `finishRunFenced` does. Undefined when not written:
 * the fence is stale or the run already final.
 *
 * @example
 * const done = await finishAttempt(db, run, fence, { status: 'completed' }, { messages, completions: [] }, { webhooks: compiled.config.webhooks ?? null });
 * if (done?.nextQueued) await scheduler.submit(runJobData(done.nextQueued));
 */
export async function finishAttempt(
  db: Db,
  run: Pick<Run, 'id' | 'tenantId' | 'conversationId'>,
  fence: number,
  update: FinalUpdate,
  writes: FinalWrites,
  options: { webhooks?: readonly WebhookTarget[] | null } = {},
): Promise<{ nextQueued: QueuedRun | undefined } | undefined> {
  const known = options.webhooks === undefined ? undefined : (options.webhooks ?? []);
  const quiet = known !== undefined && !hasWebhookFor(known, update.status);
  const values = {
    ...Object.fromEntries(Object.entries(update).filter(([, value]) => value !== undefined)),
    ...endUserCleared,
  };
  try {
    return await withTenantScope(db, run.tenantId, async (tx, commitAhead) => {
      const finished = quiet
        ? assertFence(tx, run.id, fence, values, true)
        : runFinish({ ...update, ...endUserCleared }, ACTIVE)(tx, { ...values, runId: run.id, fence }).then(
            async ([row]) => {
              if (!row) throw staleAttempt(run.id);
              await recordRunWebhooks(tx, row, known ?? (await storedWebhookTargets(tx, row)));
            },
          );
      const rest = Promise.all([
        insertRunMessages(tx, run, writes.messages),
        ...writes.completions.map(({ toolCallId, result }) =>
          completeToolCall(tx, { runId: run.id, tenantId: run.tenantId, toolCallId }, fence, result),
        ),
        nextQueuedRun(tx, { tenantId: run.tenantId, conversationId: run.conversationId }),
      ]);
      if (quiet) commitAhead();
      const written = await behindFence(finished, rest);
      const next = written.at(-1) as QueuedRun[];
      return { nextQueued: next[0] };
    });
  } catch (error) {
    if (error instanceof AppError && error.code === 'stale_attempt') return undefined;
    throw error;
  }
}

/** A queued run with what its job names (`runJobData`). */
export type QueuedRun = Pick<Run, 'id' | 'tenantId' | 'conversationId' | 'agentId' | 'agentVersion'>;

/** The conversation's oldest queued run (the next to go once the active one ends). */
const nextQueuedRun = prebuilt((db) =>
  db
    .select({
      id: runs.id,
      tenantId: runs.tenantId,
      conversationId: runs.conversationId,
      agentId: runs.agentId,
      agentVersion: runs.agentVersion,
    })
    .from(runs)
    .where(
      and(
        eq(runs.conversationId, sql.placeholder('conversationId')),
        eq(runs.tenantId, sql.placeholder('tenantId')),
        isQueuedRun(runs.status),
      ),
    )
    .orderBy(asc(runs.createdAt), asc(runs.id))
    .limit(1),
);

/** The fenced final update of these columns from these statuses, prebuilt per shape. */
function runFinish(update: Partial<Run>, fromStatuses: RunStatus[]) {
  const columns = Object.keys(update)
    .filter((column) => update[column as keyof Run] !== undefined)
    .sort();
  // A column set to null is part of the shape, not a value (see `fenceCheck`).
  const isNull = (column: string) => update[column as keyof Run] === null;
  const shape = `${columns.map((c) => (isNull(c) ? `${c}=null` : c)).join(',')}|${fromStatuses.join(',')}`;
  let finish = runFinishes.get(shape);
  if (!finish) {
    finish = prebuilt((db) =>
      db
        .update(runs)
        .set({
          ...Object.fromEntries(columns.map((column) => [column, isNull(column) ? null : sql.placeholder(column)])),
          finishedAt: sql`now()`,
          heartbeatAt: sql`now()`,
        })
        .where(
          and(
            eq(runs.id, sql.placeholder('runId')),
            eq(runs.fence, sql.placeholder('fence')),
            inArray(runs.status, fromStatuses),
          ),
        )
        .returning(),
    );
    if (runFinishes.size < 32) runFinishes.set(shape, finish);
  }
  return finish;
}

const runFinishes = new Map<string, (db: Db, values: Record<string, unknown>) => Promise<Run[]>>();

/** Ends a run that no attempt holds (cancelled while queued, swept after a timeout). */
export async function finishRunUnfenced(
  db: Db,
  run: RunRef,
  update: { status: RunStatus; error?: Run['error'] },
  fromStatuses: RunStatus[] = ACTIVE,
): Promise<boolean> {
  const rows = await withTenantScope(db, run.tenantId, async (tx) => {
    const updated = await tx
      .update(runs)
      .set({ ...update, ...endUserCleared, finishedAt: sql`now()`, fence: sql`${runs.fence} + 1` })
      .where(and(eq(runs.id, run.id), inArray(runs.status, fromStatuses)))
      .returning();
    if (updated[0]) await recordRunWebhooks(tx, updated[0], await storedWebhookTargets(tx, updated[0]));
    return updated;
  });
  return rows.length > 0;
}
