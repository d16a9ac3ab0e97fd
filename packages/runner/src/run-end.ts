import type { AgentRunResult } from '@agentry/agent';
import type { WebhookConfig } from '@agentry/config';
import { checkpointRun, finishAttempt, markRunWaiting, type Run } from '@agentry/db';
import { addUsage, type Usage } from '@agentry/llm';
import { runJobData } from '@agentry/queue';
import type { ProcessorContext } from './processor-context.ts';
import type { RunOutcome } from './run-outcome.ts';
import type { WriteBehind } from './write-behind.ts';

/**
 * Ends the run with its final status, fenced: what the attempt put off, the status and the
 * conversation's next queued run in one transaction; then the final event, and the next run is
 * submitted. Nothing happens when the attempt is stale or the run already final.
 */
export async function finish(
  ctx: ProcessorContext,
  run: Run,
  fence: number,
  writes: WriteBehind,
  outcome: RunOutcome,
  totals: { usage?: Usage; toolCallCount?: number } = {},
  webhooks?: readonly WebhookConfig[] | null,
): Promise<void> {
  const { deps, telemetry } = ctx;
  // A failed run's status is written even when what the attempt put off was lost; any other end
  // needs those writes, and their failure fails the attempt instead.
  const put = await writes.drain(outcome.status === 'failed' ? 'drop' : 'throw');
  // What the attempt put off (the final answer and its step), the final status and the
  // conversation's next queued run in one transaction; the next run is queued only after the
  // final status is published.
  // Stale or already final: undefined, and the put-off writes roll back with the transaction.
  // Knowing the version's webhooks (none for this status: one round trip) spares a read of them.
  const write = () =>
    finishAttempt(
      deps.db,
      run,
      fence,
      {
        status: outcome.status,
        ...(outcome.error ? { error: outcome.error } : {}),
        ...(put.update.steps ? { steps: put.update.steps } : {}),
        ...(put.update.usage ? { usage: put.update.usage } : {}),
        ...totals,
      },
      { messages: put.messages, completions: put.completions },
      webhooks === undefined ? {} : { webhooks },
    );
  // The last checkpoint of the run rides in this transaction: traced as one.
  const next = await (telemetry ? telemetry.traceCheckpoint(run, write) : write());
  if (!next) return;
  telemetry?.runFinished(run, outcome.status);
  await ctx.publish(run.id, {
    type: 'run-status',
    status: outcome.status,
    ...(outcome.error ? { error: { code: outcome.error.code, message: outcome.error.message } } : {}),
    final: true,
  });
  // The conversation's next queued run goes now; if this submit is lost (Redis down), the
  // sweeper's reconciliation finds it in its turn.
  if (next.nextQueued) {
    await deps.scheduler?.submit(runJobData(next.nextQueued)).catch((error: unknown) => {
      ctx.log('warn', 'next run not submitted', { runId: next.nextQueued?.id, error: String(error) });
    });
  }
}

/** Parks the run until people answer; its job ends and frees the worker. */
export async function pauseForInput(
  ctx: ProcessorContext,
  run: Run,
  fence: number,
  writes: WriteBehind,
  result: AgentRunResult,
  webhooks?: readonly WebhookConfig[] | null,
): Promise<void> {
  await writes.commit((tx) =>
    checkpointRun(tx, run, fence, [], {
      usage: addUsage(run.usage, result.usage),
      toolCallCount: run.toolCallCount + result.toolCallCount,
    }),
  );
  const parked = await markRunWaiting(
    ctx.deps.db,
    run,
    fence,
    result.pending ?? [],
    webhooks === undefined ? {} : { webhooks },
  );
  if (!parked) return;
  // Only now that the run is parked (the loop's own `waiting` is held back until here): an answer
  // sent on seeing it finds the run waiting. `step` is the loop's step that asked, if it asked now.
  const asked = result.steps.at(-1);
  await ctx.publish(run.id, {
    type: 'waiting',
    ...(asked ? { step: asked.index } : {}),
    pending: result.pending ?? [],
  });
  await ctx.publish(run.id, { type: 'run-status', status: 'waiting', pending: result.pending ?? [] });
}
