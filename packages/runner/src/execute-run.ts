import { toAppError } from '@agentry/errors';
import { type Job, Requeue } from '@agentry/queue';
import { processJob } from './claim.ts';
import { isInfrastructureFault } from './infrastructure-faults.ts';
import { createProcessorContext, type RunExecutorDeps } from './processor-context.ts';

export type { RunExecutorDeps } from './processor-context.ts';

export interface RunProcessor {
  process(job: Job): Promise<void>;
  /** Stops running loops at their next checkpoint (hard stop after `deadlineMs`); their jobs go back to the queue. */
  shutdown(deadlineMs: number): Promise<void>;
  close(): void;
}

/**
 * The worker side of a run, for BullMQ and the in-process runner alike.
 *
 * Guarantees: each attempt takes a fencing number and every write checks it, so an attempt that
 * lost its job lock cannot write; the model's message is stored before its tools run and each
 * step's results after them, so a resumed attempt replays, never re-asks or re-sends; cancellation
 * aborts the model stream and pending tools.
 *
 * The parts, one idea each: `claim.ts` (the slot, the claim in the run's turn, the start reads),
 * `attempt.ts` (one fenced attempt and how it ends), `run-loop.ts` and `agent-options.ts` (the
 * agent's loop and its checkpoints), `resume-history.ts` (what an earlier attempt left open),
 * `run-end.ts` (final status, parking), `stop-reasons.ts` (cancel, shutdown, stale) and
 * `infrastructure-faults.ts` (backoff without spending attempts).
 *
 * @example
 * const processor = createRunProcessor(deps);
 * queue.startWorker((job) => processor.process(job));
 */
export function createRunProcessor(deps: RunExecutorDeps): RunProcessor {
  const ctx = createProcessorContext(deps);
  const unsubscribe = deps.control?.onCancel((runId) => ctx.attempts.cancel(runId));
  return {
    process: (job) =>
      processJob(ctx, job).catch((error: unknown) => {
        // A fault before the attempt (the slot, the claim, the start reads) is retried the same way.
        if (!(error instanceof Requeue) && isInfrastructureFault(toAppError(error))) {
          throw new Requeue(ctx.faults.next(job.data.runId), toAppError(error).code);
        }
        throw error;
      }),
    shutdown: (deadlineMs) => ctx.attempts.shutdown(deadlineMs),
    close() {
      unsubscribe?.();
    },
  };
}
