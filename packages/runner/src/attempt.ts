import { heartbeatRun, type Run } from '@agentry/db';
import { toAppError } from '@agentry/errors';
import { addUsage } from '@agentry/llm';
import { type Job, Requeue } from '@agentry/queue';
import { isInfrastructureFault } from './infrastructure-faults.ts';
import type { ProcessorContext } from './processor-context.ts';
import { finish, pauseForInput } from './run-end.ts';
import { runLoop } from './run-loop.ts';
import { runOutcome } from './run-outcome.ts';
import type { RunStart } from './run-setup.ts';
import { stopAttempt, stopReasonOf } from './stop-reasons.ts';
import { createWriteBehind } from './write-behind.ts';

/** A claimed run and what it starts from (none when it is to be cancelled or could not be read). */
export interface ClaimedRun {
  run: Run;
  start?: RunStart;
}

/**
 * One attempt of a claimed run, under its fencing number: the loop, then its end — finished,
 * parked for people, put back for the next worker (shutdown), dropped (stale), retried (a
 * retryable error before the last attempt, an infrastructure fault after a backoff) or failed.
 */
export async function attempt(ctx: ProcessorContext, job: Job, claimed: ClaimedRun): Promise<void> {
  const { deps, log, telemetry } = ctx;
  const { run, start } = claimed;
  // The compiled agent's webhook targets, for the run's end and its parking (null: none; undefined
  // when it did not compile: the status writes read them from the stored config then).
  // A test conversation's runs (issue 22) send no webhooks: a test must not reach the tenant's systems.
  const webhooks = start?.rows.conversation?.test
    ? null
    : start?.compiled && 'config' in start.compiled
      ? (start.compiled.config.webhooks ?? null)
      : undefined;
  telemetry?.attemptStarted(run);
  const fence = run.fence;
  const fields = { runId: run.id, tenantId: run.tenantId, traceId: run.traceId, attempt: job.attempt, fence };
  const writes = createWriteBehind(deps.db, run, fence);
  const controller = ctx.attempts.begin(run.id);
  const beat = startHeartbeat(ctx, run, controller, fields);
  try {
    if (run.cancelRequestedAt || !start) {
      await finish(ctx, run, fence, writes, { status: 'cancelled' });
      return;
    }
    // Not awaited, like the loop's events: the one writer connection keeps them in order.
    void ctx.publish(run.id, { type: 'run-status', status: 'running', attempt: job.attempt });
    const result = await runLoop(ctx, run, fence, controller, start, writes);
    const reason = stopReasonOf(controller);
    if (result.status === 'cancelled' && reason === 'shutdown') {
      // What the attempt put off is kept for the next worker to resume from.
      await writes.commit().catch(() => {});
      throw new Requeue(0, 'worker shutting down');
    }
    if (result.status === 'cancelled' && reason === 'stale') return;
    if (result.status === 'waiting') {
      await pauseForInput(ctx, run, fence, writes, result, webhooks);
      log('info', 'run waiting for a person', { ...fields, pending: result.pending?.length ?? 0 });
      return;
    }
    const outcome = runOutcome(result);
    await finish(
      ctx,
      run,
      fence,
      writes,
      outcome,
      { usage: addUsage(run.usage, result.usage), toolCallCount: run.toolCallCount + result.toolCallCount },
      webhooks,
    );
    log('info', 'run finished', { ...fields, status: outcome.status, steps: result.steps.length });
  } catch (error) {
    if (error instanceof Requeue) throw error;
    const appError = toAppError(error);
    if (appError.code === 'stale_attempt') {
      log('warn', 'stale attempt stopped', fields);
      return;
    }
    if (isInfrastructureFault(appError)) {
      // Not the run's fault: retried after a backoff, without spending the job's attempts.
      const delayMs = ctx.faults.next(run.id);
      log('warn', 'run attempt met an infrastructure fault, will retry', { ...fields, code: appError.code, delayMs });
      await writes.commit().catch(() => {});
      throw new Requeue(delayMs, appError.code);
    }
    if (appError.isRetryable && job.attempt < deps.maxAttempts) {
      log('warn', 'run attempt failed, will retry', { ...fields, code: appError.code });
      // Kept for the retry to resume from, when the database takes it.
      await writes.commit().catch(() => {});
      throw appError;
    }
    log('error', 'run failed', { ...fields, code: appError.code, cause: String(appError.cause ?? '') });
    await finish(ctx, run, fence, writes, { status: 'failed', error: appError.toJSON() }, {}, webhooks);
    if (!appError.isRetryable) throw appError;
  } finally {
    clearInterval(beat);
    // Every end publishes its buffered deltas: the ones with a final event already did, before it.
    ctx.flushEvents(run.id);
    ctx.attempts.end(run.id);
  }
  ctx.faults.forget(run.id);
}

/**
 * The attempt's heartbeat (every `heartbeatMs`, default 10 s): proves the fence still holds (a
 * newer attempt's claim stops this one as `stale`) and refreshes the tenant slot's lease.
 */
function startHeartbeat(
  ctx: ProcessorContext,
  run: Run,
  controller: AbortController,
  fields: Record<string, unknown>,
): NodeJS.Timeout {
  const { deps } = ctx;
  const beat = setInterval(() => {
    // A beat that fails (database or Redis away) is retried by the next; unhandled, it ended the
    // worker. The attempt's next write finds the outage and retries the run after a backoff.
    void heartbeatRun(deps.db, run, run.fence).then(
      (current) => {
        if (!current) stopAttempt(controller, 'stale');
      },
      (error: unknown) => ctx.log('warn', 'heartbeat failed', { ...fields, error: String(error) }),
    );
    void deps.scheduler?.refresh({ runId: run.id, tenantId: run.tenantId }).catch(() => {});
  }, deps.heartbeatMs ?? 10_000);
  beat.unref();
  return beat;
}
