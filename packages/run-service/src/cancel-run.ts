import { activeRuns, type Db, FINAL_RUN_STATUSES, finishRunUnfenced, type Run, requestCancel } from '@agentry/db';
import { type RunScheduler, runJobData } from '@agentry/queue';
import type { RunControl, RunEventBus } from '@agentry/run-events';

/** What stopping a run needs. */
export interface CancelRunDeps {
  db: Db;
  scheduler: RunScheduler;
  control: RunControl;
  events?: RunEventBus | undefined;
}

export interface CancelRunOptions {
  /**
   * Whether the conversation's next queued run starts once this one ended here (default true).
   * False when every active run of the conversation is being stopped (people take it over).
   */
  startNext?: boolean;
  /**
   * Whether a running run's worker that cannot be told (its control channel is down) is not an
   * error: the request stays on the run (default false: the error, e.g. 503, reaches the caller).
   */
  bestEffort?: boolean;
}

/**
 * Stops a run, wherever it is. Queued (parked at its tenant's cap or dispatched) and waiting runs
 * end here, `cancelled`, for good: the fence moves, so a job dispatched for one finds it final; its
 * place in the tenant's wait list goes and the conversation's next queued run starts. A running
 * run's worker is told to stop at once (the run's control channel) and writes `cancelled` itself;
 * a worker that died meanwhile leaves the request on the run, which the next claim honours.
 * Returns the run as it is now (not yet final when a worker is stopping it).
 *
 * @example
 * const run = await cancelRun({ db, scheduler, control, events }, found);
 * run.status; // 'cancelled', or 'running' while its worker stops
 */
export async function cancelRun(deps: CancelRunDeps, run: Run, options: CancelRunOptions = {}): Promise<Run> {
  const requested = (await requestCancel(deps.db, run.tenantId, run.id)) ?? run;
  if (FINAL_RUN_STATUSES.includes(requested.status)) return requested;
  if (
    (requested.status === 'queued' || requested.status === 'waiting') &&
    (await finishRunUnfenced(deps.db, requested, { status: 'cancelled' }, ['queued', 'waiting']))
  ) {
    await deps.events?.publish(run.id, { type: 'run-status', status: 'cancelled', final: true }).catch(() => '');
    await deps.scheduler.forget({ runId: run.id, tenantId: run.tenantId }).catch(() => {});
    if (options.startNext !== false) await startNextRun(deps, run);
    return { ...requested, status: 'cancelled' };
  }
  // Running (or it started between the two reads): its worker stops it.
  const told = deps.control.cancel(run.id);
  await (options.bestEffort ? told.catch(() => {}) : told);
  return requested;
}

/** The conversation's next queued run (if any) goes now that `run` ended without a worker. */
async function startNextRun(deps: CancelRunDeps, run: Run): Promise<void> {
  const next = (await activeRuns(deps.db, run.tenantId, run.conversationId)).find((r) => r.status === 'queued');
  if (next) await deps.scheduler.submit(runJobData(next)).catch(() => {});
}
