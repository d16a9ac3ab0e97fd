import {
  type ClaimRef,
  claimRunInTurn,
  FINAL_RUN_STATUSES,
  getRunWithTurn,
  readRunStart,
  withTenantScope,
  writePendingInput,
} from '@agentry/db';
import { type Job, Requeue } from '@agentry/queue';
import { attempt, type ClaimedRun } from './attempt.ts';
import type { ProcessorContext } from './processor-context.ts';
import { gatherRunStart } from './run-setup.ts';

/**
 * One job: the tenant's slot, the run's claim in its turn, then the attempt; the slot is let go
 * whatever happened. A job taken while the processor shuts down goes back to the queue.
 */
export async function processJob(ctx: ProcessorContext, job: Job): Promise<void> {
  if (ctx.attempts.stopping) throw new Requeue(0, 'worker shutting down');
  const { deps } = ctx;
  // The job names the run's tenant (the queue is trusted); a wrong one finds no run (row security).
  const { runId, tenantId } = job.data;
  const ref = claimRefOf(job);
  // The tenant's slot first, so that the claim, the turn check and the start reads are one
  // transaction. At the cap the run is parked by the scheduler and this job ends: a released
  // slot dispatches it again (nothing looks at it meanwhile).
  if (deps.scheduler && !(await deps.scheduler.acquire(job.data))) return;
  try {
    const claimed = await claimWithStart(ctx, ref);
    if (!claimed) return await notClaimed(ctx, job, ref);
    await attempt(ctx, job, claimed);
  } finally {
    // A fault here leaves the lease to expire; the scheduler's reconciliation frees it.
    await deps.scheduler?.release(job.data).catch((error: unknown) => {
      ctx.log('warn', 'slot release failed', { runId, tenantId, error: String(error) });
    });
  }
}

/** What the claim looks the run up by: its id and tenant, and where its start reads look. */
function claimRefOf(job: Job): ClaimRef {
  const { runId, tenantId, conversationId, agentId, agentVersion } = job.data;
  return {
    id: runId,
    tenantId,
    ...(conversationId ? { conversationId } : {}),
    ...(agentId ? { agentId } : {}),
    ...(agentVersion !== undefined ? { agentVersion } : {}),
  };
}

/**
 * Why a run was not claimed: gone or finished (the job ends), or an earlier run of its
 * conversation is still active (one active run per conversation, oldest first). Then this job
 * ends too: the earlier run's end submits this one (`finish`, the sweeper, a cancel), and a
 * submit that arrives while this job still holds the slot is acted on when it lets go. When the
 * earlier run ended between the claim and this read, the turn has come: claim again.
 */
async function notClaimed(ctx: ProcessorContext, job: Job, ref: ClaimRef, tries = 2): Promise<void> {
  const found = await getRunWithTurn(ctx.deps.db, ref);
  if (!found || FINAL_RUN_STATUSES.includes(found.run.status)) return;
  if (found.oldestActiveRunId && found.oldestActiveRunId !== found.run.id) return;
  if (tries === 0) return; // the sweeper's reconciliation finds a run left in its turn
  const claimed = await claimWithStart(ctx, ref);
  if (!claimed) return notClaimed(ctx, job, ref, tries - 1);
  await attempt(ctx, job, claimed);
}

/**
 * Claims the run when it is its turn and, in the same transaction, reads what it starts from (one
 * round trip on Postgres when the job names the run's conversation and agent version: the
 * COMMIT travels with them); then compiles it, reading the secrets the agent needs (one more
 * transaction when it needs some). A run to be cancelled gets the claim alone; one with a
 * deferred message writes it (fenced by this claim) and reads the transcript again. Nothing here
 * throws for a bad config or secret: `setUpRun` throws later, for the failure to be written with
 * the claim's fence (a database error after the claim fails the job, which is retried; the next
 * attempt claims the run again). Undefined when the run is gone, finished or not its turn.
 */
async function claimWithStart(ctx: ProcessorContext, ref: ClaimRef): Promise<ClaimedRun | undefined> {
  const { db, secretBox } = ctx.deps;
  const claimed = await claimRunInTurn(db, ref);
  if (!claimed) return undefined;
  const { run } = claimed;
  if (run.cancelRequestedAt) return { run };
  let rows = claimed.start;
  if (run.pendingInput || !rows) {
    rows = await withTenantScope(db, run.tenantId, async (tx) => {
      // The deferred message goes into the transcript first; the reads travel right behind it.
      const [, read] = await Promise.all([writePendingInput(tx, run, run.fence), readRunStart(tx, run)]);
      return read;
    });
  }
  return { run, start: await gatherRunStart(db, run, rows, secretBox) };
}
