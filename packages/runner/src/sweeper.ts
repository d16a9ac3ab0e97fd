import {
  activeRuns,
  type Db,
  expiredWaitingRuns,
  finishRunFenced,
  finishRunUnfenced,
  type Run,
  type StaleRun,
  staleRuns,
  touchWaitingRuns,
} from '@agentry/db';
import { type Env, envInt } from '@agentry/env';
import { type RunScheduler, runJobData } from '@agentry/queue';
import type { RunEventBus } from '@agentry/run-events';

export interface SweeperOptions {
  db: Db;
  /** Where runs found lost are submitted again, and what tells a parked run from a lost one. */
  scheduler: Pick<RunScheduler, 'submit' | 'tracked' | 'reconcile'>;
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
 * `SWEEP_INTERVAL_MS` and `WAITING_RUN_TTL_SECONDS`, for the apps that run the sweeper (the
 * worker, the embedded API); throws `EnvError` naming a bad one.
 *
 * @example
 * const sweeper = sweeperSettingsFromEnv(process.env);
 */
export function sweeperSettingsFromEnv(env: Env): SweeperSettings {
  return {
    intervalMs: envInt(env, 'SWEEP_INTERVAL_MS', 30_000, [100, 3_600_000]),
    waitingTimeoutSeconds: envInt(env, 'WAITING_RUN_TTL_SECONDS', DEFAULT_WAITING_TIMEOUT_SECONDS, [
      1,
      MAX_WAITING_TIMEOUT_SECONDS,
    ]),
  };
}

/**
 * One pass of the stuck-run sweeper, the low-rate reconciliation behind the event-driven
 * scheduler: no run stays "running", "queued" or "waiting" forever, and none is looked at on a
 * timer of its own. It first lets the scheduler hand expired slots to parked runs
 * (`reconcile`), then reads one bounded page of the runs silent the longest (`staleRuns`): a
 * queued run behind its conversation's earlier run, or one the scheduler holds (parked or
 * dispatched), is legitimately waiting and only marked as seen; any other — a crashed worker's
 * run, a wake-up lost to an outage, a run whose job's attempts ran out — is submitted again and
 * resumes from its last checkpoint; one silent past `giveUpAfterMs` ends as `timed_out`. A run that
 * waited for a person longer than its waiting timeout ends as `timed_out` (`waiting_timeout`) with
 * its final event and webhook, and the conversation's next queued run is submitted. Safe to run in
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
  // Redis away: the database's part of the pass (waiting-run expiry below) still runs.
  await options.scheduler.reconcile().catch(() => 0);
  const stale = await staleRuns(options.db, new Date(now - options.staleAfterMs));
  const waiting = await legitimatelyWaiting(options, stale);
  for (const run of stale) {
    if (waiting.has(run.id)) continue;
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
    await options.scheduler.submit(runJobData(run));
    requeued++;
  }
  const expired = await expireWaitingRuns(options);
  if (requeued + timedOut + expired > 0) options.log?.('info', 'swept stuck runs', { requeued, timedOut, expired });
  return { requeued, timedOut, expired };
}

/**
 * The stale runs that wait as they should — queued behind their conversation's earlier run, or held
 * by the scheduler — marked as seen so the next pass reads others first.
 */
async function legitimatelyWaiting(options: SweeperOptions, stale: StaleRun[]): Promise<Set<string>> {
  const byTenant = new Map<string, StaleRun[]>();
  for (const run of stale) byTenant.set(run.tenantId, [...(byTenant.get(run.tenantId) ?? []), run]);
  const waiting = new Set<string>();
  for (const [tenantId, list] of byTenant) {
    const held = await options.scheduler.tracked(
      tenantId,
      list.map((r) => r.id),
    );
    // A running run whose slot is still refreshed has a live worker (its database heartbeat may
    // be what fails): left alone, like the queued runs the scheduler holds.
    const seen = list.filter((r) => r.behindEarlierRun || held.has(r.id));
    for (const run of seen) waiting.add(run.id);
    await touchWaitingRuns(
      options.db,
      tenantId,
      seen.filter((r) => r.status === 'queued').map((r) => r.id),
    );
  }
  return waiting;
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
  if (next) await options.scheduler.submit(runJobData(next)).catch(() => {});
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
