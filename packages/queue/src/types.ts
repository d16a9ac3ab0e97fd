/** The payload of a run job. The job id is the run id, so a run is never queued twice. */
export interface RunJobData {
  runId: string;
  tenantId: string;
  /**
   * Where the run's start reads look (fixed when the run is created): with them the worker sends
   * its claim and the reads together, in one round trip. Optional: without them it reads after
   * claiming.
   */
  conversationId?: string;
  agentId?: string;
  agentVersion?: number;
}

/** A job of a queue; `T` is its payload (run jobs by default; the knowledge queue has its own). */
export interface Job<T = RunJobData> {
  id: string;
  data: T;
  /** 1 for the first attempt. */
  attempt: number;
}

/** Processes one job. Throw a non-retryable `AppError` to fail the job without further attempts. */
export type JobHandler<T = RunJobData> = (job: Job<T>) => Promise<void>;

export type WaitOutcome = 'finished' | 'timeout';

/** Jobs by state, for the queue depth metrics. */
export interface JobCounts {
  /** Ready to run, not yet taken by a worker. */
  waiting: number;
  /** Taken by a worker and running. */
  active: number;
  /** Waiting for a retry backoff or a requeue delay. */
  delayed: number;
}

/**
 * The producer side, identical for BullMQ and the in-process runner.
 *
 * @example
 * await queue.enqueue(run.id, { runId: run.id, tenantId });
 * await queue.waitUntilFinished(run.id, 30_000);
 */
export interface JobQueue<T = RunJobData> {
  readonly kind: 'bullmq' | 'in-process';
  enqueue(jobId: string, data: T): Promise<void>;
  /** Resolves when the job completed or failed for good, or when `timeoutMs` passed. */
  waitUntilFinished(jobId: string, timeoutMs: number): Promise<WaitOutcome>;
  /** Jobs waiting, active and delayed right now (the queue depth metrics sample it on each scrape). */
  counts(): Promise<JobCounts>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface WorkerOptions {
  concurrency?: number;
  /**
   * BullMQ: how long a job's lock lasts without renewal; a worker that dies (or blocks its event
   * loop) this long loses the job to another worker (stalled-job recovery). Default
   * {@link DEFAULT_JOB_LOCK_MS}.
   */
  lockMs?: number;
}

/** A job lock's default (`WorkerOptions.lockMs`), 30 s: also the default lease of a tenant slot. */
export const DEFAULT_JOB_LOCK_MS = 30_000;

export interface JobWorker {
  close(): Promise<void>;
}

/** Retry policy shared by both runners, so they behave the same. */
export const jobRetryPolicy = { attempts: 3, backoffMs: 500 };

/**
 * A new run's job: its id and tenant, and where its start reads look, so that the worker claims it
 * and reads what it starts from in one round trip.
 *
 * @example
 * await queue.enqueue(run.id, runJobData(run));
 */
export function runJobData(run: {
  id: string;
  tenantId: string;
  conversationId: string;
  agentId: string;
  agentVersion: number;
}): RunJobData {
  return {
    runId: run.id,
    tenantId: run.tenantId,
    conversationId: run.conversationId,
    agentId: run.agentId,
    agentVersion: run.agentVersion,
  };
}
