import {
  activeRuns,
  type Db,
  expiredWaitingRuns,
  finishRunFenced,
  finishRunUnfenced,
  type Run,
  staleRuns,
} from '@agentry/db';
import type { RunEventBus } from '@agentry/run-events';

export interface SweeperOptions {
  db: Db;
  enqueue: (runId: string, tenantId: string) => Promise<void>;
  events?: RunEventBus;
  /** A run without a heartbeat for this long is considered abandoned. */
  staleAfterMs: number;
  /**
   * An abandoned run that has shown no sign of life (heartbeat, parking, answer or deferral; else
   * its creation) for this long is ended as `timed_out` instead of being resumed.
   */
  giveUpAfterMs: number;
  /**
   * How long a run may wait for a person (approval, client tool result) when its agent's config
   * sets no `limits.waiting_timeout`; past it the run ends as `timed_out`. Default 24 h.
   */
  waitingTimeoutSeconds?: number;
  log?: (level: 'info' | 'warn', message: string, fields: Record<string, unknown>) => void;
}

/** `WAITING_RUN_TTL_SECONDS`' default: a day to answer an approval or a client tool. */
export const DEFAULT_WAITING_TIMEOUT_SECONDS = 24 * 60 * 60;
/** The longest wait `WAITING_RUN_TTL_SECONDS` accepts (a year; the config schema allows as much). */
export const MAX_WAITING_TIMEOUT_SECONDS = 365 * 24 * 60 * 60;

/** What the apps read from `SWEEP_INTERVAL_MS` and `WAITING_RUN_TTL_SECONDS` (their config modules). */
export interface SweeperSettings {
  /** Between two sweeps; an expired waiting run ends at most this long after its deadline. */
  intervalMs: number;
  /** A waiting run's deadline when its agent's config sets no `limits.waiting_timeout`. */
  waitingTimeoutSeconds: number;
}

/**
 * One pass of the stuck-run sweeper: no run stays "running", "queued" or "waiting" forever. An
 * abandoned run is queued again (its job id is its run id, so a job still alive is not duplicated)
 * and resumes from its last checkpoint; one past `giveUpAfterMs` ends as `timed_out`. A run that
 * waited for a person longer than its waiting timeout ends as `timed_out` (`waiting_timeout`) with
 * its final event and webhook, and the conversation's next queued run is started. Safe to run in
 * every worker at once: every end is a conditional write, so only one sweeper wins each run.
 *
 * @example
 * setInterval(() => sweepStuckRuns(options), 30_000);
 */
export async function sweepStuckRuns(
  options: SweeperOptions,
): Promise<{ requeued: number; timedOut: number; expired: number }> {
  const now = Date.now();
  let requeued = 0;
  let timedOut = 0;
  for (const run of await staleRuns(options.db, new Date(now - options.staleAfterMs))) {
    // Measured from the last sign of life, not from creation: a run that waited a day for an
    // approval, or behind its conversation's earlier run, has not been stuck all that time.
    const lastAlive = (run.heartbeatAt ?? run.createdAt).getTime();
    if (now - lastAlive > options.giveUpAfterMs) {
      const error = {
        code: 'run_abandoned',
        message: 'The run stopped making progress and was ended',
        category: 'system',
        retryable: false,
      };
      if (await finishRunUnfenced(options.db, run, { status: 'timed_out', error })) {
        timedOut++;
        await ended(options, run, error);
      }
      continue;
    }
    await options.enqueue(run.id, run.tenantId);
    requeued++;
  }
  const expired = await expireWaitingRuns(options);
  if (requeued + timedOut + expired > 0) options.log?.('info', 'swept stuck runs', { requeued, timedOut, expired });
  return { requeued, timedOut, expired };
}

/** Ends the waiting runs nobody answered in time; returns how many this pass ended. */
async function expireWaitingRuns(options: SweeperOptions): Promise<number> {
  let expired = 0;
  const fallback = options.waitingTimeoutSeconds ?? DEFAULT_WAITING_TIMEOUT_SECONDS;
  for (const run of await expiredWaitingRuns(options.db, fallback)) {
    const error = {
      code: 'waiting_timeout',
      message: `No answer to the pending tool call within ${formatSeconds(run.waitingTimeoutSeconds)}; the run was ended`,
      category: 'user',
      retryable: false,
    };
    // Fenced on the attempt that parked it and only from `waiting`: an answer that won the race
    // (queued again), or a newer attempt that parked it anew, keeps the run.
    if (await finishRunFenced(options.db, run, run.fence, { status: 'timed_out', error }, ['waiting'])) {
      expired++;
      options.log?.('info', 'waiting run expired', {
        runId: run.id,
        tenantId: run.tenantId,
        waitingTimeoutSeconds: run.waitingTimeoutSeconds,
      });
      await ended(options, run, error);
    }
  }
  return expired;
}

/** After the sweeper ended a run: its final event, then the conversation's next queued run. */
async function ended(options: SweeperOptions, run: Run, error: { code: string; message: string }): Promise<void> {
  await options.events
    ?.publish(run.id, {
      type: 'run-status',
      status: 'timed_out',
      error: { code: error.code, message: error.message },
      final: true,
    })
    .catch(() => {});
  // The conversation is free: a message queued behind this run (busy policy `enqueue`) starts now.
  const next = (await activeRuns(options.db, run.tenantId, run.conversationId)).find((r) => r.status === 'queued');
  if (next) await options.enqueue(next.id, next.tenantId).catch(() => {});
}

/** `86400` → `24 h`, `90` → `90 s`: the unit the operator most likely configured. */
export function formatSeconds(seconds: number): string {
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
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
