import { type Db, finishRunUnfenced, staleRuns } from '@agentry/db';
import type { RunEventBus } from '@agentry/run-events';

export interface SweeperOptions {
  db: Db;
  enqueue: (runId: string, tenantId: string) => Promise<void>;
  events?: RunEventBus;
  /** A run without a heartbeat for this long is considered abandoned. */
  staleAfterMs: number;
  /** An abandoned run older than this is ended as `timed_out` instead of being resumed. */
  giveUpAfterMs: number;
  log?: (level: 'info' | 'warn', message: string, fields: Record<string, unknown>) => void;
}

/**
 * One pass of the stuck-run sweeper: no run stays "running" or "queued" forever. An abandoned run
 * is queued again (its job id is its run id, so a job still alive is not duplicated) and resumes
 * from its last checkpoint; one past `giveUpAfterMs` ends as `timed_out`. Safe to run in every
 * worker at once.
 *
 * @example
 * setInterval(() => sweepStuckRuns(options), 30_000);
 */
export async function sweepStuckRuns(options: SweeperOptions): Promise<{ requeued: number; timedOut: number }> {
  const now = Date.now();
  let requeued = 0;
  let timedOut = 0;
  for (const run of await staleRuns(options.db, new Date(now - options.staleAfterMs))) {
    if (now - run.createdAt.getTime() > options.giveUpAfterMs) {
      const ended = await finishRunUnfenced(options.db, run, {
        status: 'timed_out',
        error: {
          code: 'run_abandoned',
          message: 'The run stopped making progress and was ended',
          category: 'system',
          retryable: false,
        },
      });
      if (ended) {
        timedOut++;
        await options.events?.publish(run.id, { type: 'run-status', status: 'timed_out', final: true }).catch(() => {});
      }
      continue;
    }
    await options.enqueue(run.id, run.tenantId);
    requeued++;
  }
  if (requeued + timedOut > 0) options.log?.('info', 'swept stuck runs', { requeued, timedOut });
  return { requeued, timedOut };
}

/** Runs the sweeper every `intervalMs` until the returned function is called. */
export function startSweeper(options: SweeperOptions & { intervalMs: number }): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepStuckRuns(options)
      .catch((error: unknown) => options.log?.('warn', 'sweep failed', { error: String(error) }))
      .finally(() => {
        running = false;
      });
  }, options.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
