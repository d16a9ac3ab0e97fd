import { errors, isAppError } from '@agentry/errors';
import { DelayedError, Queue, QueueEvents, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { redisOptionsFromUrl } from './redis-options.ts';
import { isRequeue } from './requeue.ts';
import {
  DEFAULT_JOB_LOCK_MS,
  type JobHandler,
  type JobQueue,
  type JobWorker,
  jobRetryPolicy,
  type RunJobData,
  type WaitOutcome,
  type WorkerOptions,
} from './types.ts';

export interface BullQueueOptions {
  redisUrl: string;
  /** Redis key prefix; tests use a random one so runs never collide. */
  prefix?: string;
  queueName?: string;
  /** The name BullMQ gives each job (default `run`). */
  jobName?: string;
  /**
   * Completed jobs kept (default 1000): while kept, a job's id refuses a second enqueue (queues
   * whose job ids name the work, such as a document's generation, rely on it). 0 removes each job
   * as it completes: one DEL in BullMQ's finishing script instead of a completed-set entry and,
   * past the kept count, a trim and a removal per job (the run queue: every dispatch has a fresh id).
   */
  keepCompleted?: number;
}

const DEFAULT_QUEUE = 'runs';

/**
 * The production producer: BullMQ on Redis. Its connection does not queue commands while Redis is
 * down, so an API request fails fast with `queue_unavailable` instead of hanging.
 *
 * @example
 * const queue = createBullQueue({ redisUrl: 'redis://127.0.0.1:6379' });
 */
export function createBullQueue<T = RunJobData>(options: BullQueueOptions): JobQueue<T> {
  const connection = new Redis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  connection.on('error', () => {}); // surfaced through failing commands instead
  const prefix = options.prefix ?? 'agentry';
  const name = options.queueName ?? DEFAULT_QUEUE;
  const keepCompleted = options.keepCompleted ?? 1000;
  // biome-ignore lint/suspicious/noExplicitAny: BullMQ's generic data type; `T` is checked at `enqueue`
  const queue = new Queue<any>(name, { connection, prefix });
  queue.on('error', () => {});
  let events: QueueEvents | undefined;

  const queueEvents = async () => {
    if (!events) {
      events = new QueueEvents(name, { connection: redisOptionsFromUrl(options.redisUrl), prefix });
      events.on('error', () => {});
      await events.waitUntilReady();
    }
    return events;
  };

  return {
    kind: 'bullmq',
    async enqueue(jobId, data) {
      try {
        await queue.add(options.jobName ?? 'run', data, {
          jobId,
          attempts: jobRetryPolicy.attempts,
          backoff: { type: 'exponential', delay: jobRetryPolicy.backoffMs },
          // Nothing reads a finished job (the API waits on the run's events): keep only a few, or none.
          removeOnComplete: keepCompleted === 0 ? true : { count: keepCompleted },
          removeOnFail: { age: 24 * 3600 },
        });
      } catch {
        throw errors.unavailable('queue_unavailable', 'The job queue is unavailable; try again shortly', 1000);
      }
    },
    async waitUntilFinished(jobId, timeoutMs): Promise<WaitOutcome> {
      const job = await queue.getJob(jobId);
      if (!job) return 'finished';
      try {
        await job.waitUntilFinished(await queueEvents(), timeoutMs);
        return 'finished';
      } catch (error) {
        return error instanceof Error && /timed out/i.test(error.message) ? 'timeout' : 'finished';
      }
    },
    async counts() {
      // BullMQ keeps prioritized jobs apart from `wait`; both are waiting to be taken.
      const c = await queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed');
      return {
        waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
        active: c.active ?? 0,
        delayed: c.delayed ?? 0,
      };
    },
    async ping() {
      await connection.ping();
    },
    async close() {
      await events?.close();
      await queue.close();
      connection.disconnect();
    },
  };
}

/**
 * Starts a BullMQ worker. Non-retryable `AppError`s become `UnrecoverableError` so BullMQ does not
 * spend further attempts on them.
 */
export function startBullWorker<T = RunJobData>(
  options: BullQueueOptions,
  handler: JobHandler<T>,
  workerOptions: WorkerOptions = {},
): JobWorker {
  const worker = new Worker<T>(
    options.queueName ?? DEFAULT_QUEUE,
    async (job, token) => {
      try {
        await handler({ id: job.id ?? '', data: job.data, attempt: job.attemptsMade + 1 });
      } catch (error) {
        if (isRequeue(error)) {
          // Back to the delayed set without spending an attempt.
          await job.moveToDelayed(Date.now() + error.delayMs, token);
          throw new DelayedError();
        }
        if (isAppError(error) && !error.isRetryable) throw new UnrecoverableError(`${error.code}: ${error.message}`);
        throw error;
      }
    },
    {
      connection: redisOptionsFromUrl(options.redisUrl, { maxRetriesPerRequest: null }),
      prefix: options.prefix ?? 'agentry',
      concurrency: workerOptions.concurrency ?? 8,
      lockDuration: workerOptions.lockMs ?? DEFAULT_JOB_LOCK_MS,
      stalledInterval: workerOptions.lockMs ?? DEFAULT_JOB_LOCK_MS,
    },
  );
  worker.on('error', () => {});
  return { close: () => worker.close() };
}
