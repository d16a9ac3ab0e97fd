import type { JobHandler, JobWorker, WorkerOptions } from './types.ts';

/** A queue's consumer plus the low-rate sweep that re-queues what a dead process left behind. */
export interface SweptWorker {
  /** Runs one sweep now (tests; the timer runs them otherwise); resolves to how many it queued. */
  sweep(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts a job consumer with `handler` and, every `sweepIntervalMs` (0: never), `sweep` — a bounded
 * reconciliation pass (one indexed query, a capped batch), so its cost does not grow with the backlog.
 * A failed sweep is reported to `onError` and tried again at the next tick.
 *
 * @example
 * const worker = startSweptWorker({ startWorker, handler, concurrency: 2, sweep: () => requeueStale(db, queue), sweepIntervalMs: 60_000 });
 */
export function startSweptWorker<T>(options: {
  startWorker(handler: JobHandler<T>, options: WorkerOptions): JobWorker;
  handler: JobHandler<T>;
  concurrency: number;
  sweep(): Promise<number>;
  sweepIntervalMs: number;
  onError?(error: unknown): void;
}): SweptWorker {
  const worker = options.startWorker(options.handler, { concurrency: options.concurrency });
  const timer =
    options.sweepIntervalMs > 0
      ? setInterval(() => {
          options.sweep().catch((error: unknown) => options.onError?.(error));
        }, options.sweepIntervalMs)
      : undefined;
  timer?.unref();
  return {
    sweep: options.sweep,
    async stop() {
      clearInterval(timer);
      await worker.close();
    },
  };
}
