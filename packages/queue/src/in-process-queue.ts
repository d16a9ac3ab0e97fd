import { EventEmitter } from 'node:events';
import { isAppError } from '@agentry/errors';
import { isRequeue } from './requeue.ts';
import {
  type Job,
  type JobHandler,
  type JobQueue,
  type JobWorker,
  jobRetryPolicy,
  type RunJobData,
  type WaitOutcome,
  type WorkerOptions,
} from './types.ts';

interface Entry<T> {
  job: Job<T>;
  state: 'waiting' | 'delayed' | 'active' | 'done';
}

/**
 * The embedded mode's job runner: same contract as BullMQ (job id dedupe, attempts with
 * exponential backoff, non-retryable errors end the job) without Redis. Jobs live in memory; runs
 * interrupted by a restart are picked up by the run sweeper, not by this queue.
 *
 * @example
 * const runner = createInProcessQueue();
 * runner.startWorker(async (job) => execute(job.data), { concurrency: 4 });
 */
export function createInProcessQueue<T = RunJobData>(): JobQueue<T> & {
  startWorker(handler: JobHandler<T>, options?: WorkerOptions): JobWorker;
} {
  const entries = new Map<string, Entry<T>>();
  const waiting: string[] = [];
  const finished = new EventEmitter();
  finished.setMaxListeners(0);
  let handler: JobHandler<T> | undefined;
  let concurrency = 1;
  let active = 0;
  let closed = false;

  const pump = () => {
    while (handler && !closed && active < concurrency && waiting.length > 0) {
      const entry = entries.get(waiting.shift()!);
      if (entry) void runEntry(entry, handler);
    }
  };

  const runEntry = async (entry: Entry<T>, run: JobHandler<T>) => {
    active++;
    entry.state = 'active';
    try {
      await run(entry.job);
      finish(entry);
    } catch (error) {
      if (isRequeue(error) && !closed) {
        entry.state = 'delayed';
        setTimeout(() => {
          entry.state = 'waiting';
          waiting.push(entry.job.id);
          pump();
        }, error.delayMs).unref();
        return;
      }
      const retryable = !isAppError(error) || error.isRetryable;
      if (retryable && entry.job.attempt < jobRetryPolicy.attempts && !closed) {
        const delay = jobRetryPolicy.backoffMs * 2 ** (entry.job.attempt - 1);
        entry.job = { ...entry.job, attempt: entry.job.attempt + 1 };
        entry.state = 'delayed';
        setTimeout(() => {
          entry.state = 'waiting';
          waiting.push(entry.job.id);
          pump();
        }, delay).unref();
      } else {
        finish(entry);
      }
    } finally {
      active--;
      pump();
    }
  };

  const finish = (entry: Entry<T>) => {
    entry.state = 'done';
    finished.emit(entry.job.id);
    // Keep finished ids briefly so a late duplicate enqueue is still ignored, as BullMQ does.
    setTimeout(() => entries.delete(entry.job.id), 60_000).unref();
  };

  return {
    kind: 'in-process',
    async enqueue(jobId: string, data: T) {
      if (entries.has(jobId)) return;
      entries.set(jobId, { job: { id: jobId, data, attempt: 1 }, state: 'waiting' });
      waiting.push(jobId);
      queueMicrotask(pump);
    },
    waitUntilFinished(jobId: string, timeoutMs: number): Promise<WaitOutcome> {
      const entry = entries.get(jobId);
      if (!entry || entry.state === 'done') return Promise.resolve('finished');
      return new Promise((resolve) => {
        const onDone = () => {
          clearTimeout(timer);
          resolve('finished');
        };
        const timer = setTimeout(() => {
          finished.off(jobId, onDone);
          resolve('timeout');
        }, timeoutMs);
        finished.once(jobId, onDone);
      });
    },
    async counts() {
      const counts = { waiting: 0, active: 0, delayed: 0 };
      for (const entry of entries.values()) if (entry.state !== 'done') counts[entry.state]++;
      return counts;
    },
    async ping() {},
    async close() {
      closed = true;
    },
    startWorker(nextHandler: JobHandler<T>, options: WorkerOptions = {}): JobWorker {
      handler = nextHandler;
      concurrency = options.concurrency ?? 4;
      queueMicrotask(pump);
      return {
        close: async () => {
          handler = undefined;
        },
      };
    },
  };
}
