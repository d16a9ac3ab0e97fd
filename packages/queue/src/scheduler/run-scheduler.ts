import type { RunJobData } from '../types.ts';

/**
 * Decides when a run gets a job, so that waiting costs nothing: a run whose tenant is at its
 * concurrency cap is parked in the tenant's wait list (first come, first served) and dispatched —
 * its job put on the queue — only when one of the tenant's slots is released. The queue therefore
 * holds at most `perTenant` jobs per tenant, and one tenant's backlog never stands in front of
 * another tenant's runs. A run waiting for its conversation's earlier run is not parked here: the
 * earlier run's end submits it (the database knows the order; `finishAttempt` returns the next one).
 *
 * Crash safety: a slot is a lease (`leaseMs`, refreshed with the run's heartbeat), so a dead worker's
 * slot frees itself; `reconcile` hands expired slots to parked runs, at a cost that depends on the
 * number of tenants with parked runs, not on how many runs wait. A submit that arrives while the run
 * holds a slot (its job is running or about to) is remembered and acted on when that job lets go, so
 * a wake-up is never lost to the race between "not my turn" and "the earlier run just ended".
 *
 * @example
 * const scheduler = createMemoryScheduler({ perTenant: 4, dispatch: (id, data) => queue.enqueue(id, data) });
 * await scheduler.submit({ runId, tenantId });          // API: a new message's run
 * if (await scheduler.acquire(job.data)) try { … } finally { await scheduler.release(job.data) } // worker
 */
export interface RunScheduler {
  /**
   * Offers a run: dispatched now when its tenant has a free slot and nobody is parked ahead of it,
   * else parked. Idempotent per run (a parked run stays in its place; one holding a slot is looked
   * at again when its job lets go).
   */
  submit(run: RunJobData): Promise<SubmitOutcome>;
  /**
   * A worker starting a job: true when the run holds a slot (the one its dispatch reserved, or a
   * free one). False: the tenant is at its cap and the run is parked; the job should end.
   */
  acquire(run: RunJobData): Promise<boolean>;
  /** Extends the run's slot lease (call with the run's heartbeat). */
  refresh(run: Pick<RunJobData, 'runId' | 'tenantId'>): Promise<void>;
  /** The job lets go of the run's slot; the tenant's next parked runs are dispatched into free slots. */
  release(run: RunJobData): Promise<void>;
  /** Takes a run out of its tenant's wait list (it was cancelled or ended without running). */
  forget(run: Pick<RunJobData, 'runId' | 'tenantId'>): Promise<void>;
  /**
   * Frees expired slots and dispatches parked runs into free slots, for every tenant with parked
   * runs. Returns how many runs it dispatched. Call at a low rate (every few seconds per process).
   */
  reconcile(): Promise<number>;
  /** How many runs are parked, all tenants together (a counter: cheap to read). */
  backlog(): Promise<number>;
  /** Which of these runs of a tenant the scheduler holds (parked, or holding a live slot). */
  tracked(tenantId: string, runIds: string[]): Promise<Set<string>>;
  close(): Promise<void>;
}

export type SubmitOutcome = 'dispatched' | 'parked' | 'held';

export interface SchedulerOptions {
  /** Runs of one tenant that may hold a slot at once (`TENANT_CONCURRENCY`). */
  perTenant: number;
  /** A slot not refreshed for this long frees itself (default 30 s, the job lock time). */
  leaseMs?: number;
  /**
   * Puts a dispatched run's job on the queue. Each dispatch gets a fresh job id, so a queue that
   * keeps finished jobs never swallows a later dispatch of the same run.
   */
  dispatch: (jobId: string, data: RunJobData) => Promise<void>;
  /** Told when a dispatch or a release failed (the reconciliation and the sweeper recover it). */
  onError?: (message: string, error: unknown, run?: RunJobData) => void;
}

export const DEFAULT_LEASE_MS = 30_000;

/** A dispatch's job id: the run id (readable in logs) and a random suffix (never a duplicate). */
export function dispatchJobId(runId: string): string {
  return `${runId}-${Math.random().toString(36).slice(2, 10)}`;
}
