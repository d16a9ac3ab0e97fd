import type { RunScheduler } from './run-scheduler.ts';

/**
 * Runs the scheduler's reconciliation every `intervalMs` (half the slot lease by default in the
 * apps, so a dead worker's slot is handed on about one lease after it stopped refreshing it). Its
 * cost depends on the number of tenants with parked runs, not on how many runs wait. One pass at a
 * time; a failed pass (Redis down) is reported and the next one tries again.
 *
 * @example
 * const stop = startReconciler(scheduler, { intervalMs: 15_000, onError: (e) => log.warn(e) });
 */
export function startReconciler(
  scheduler: Pick<RunScheduler, 'reconcile'>,
  options: { intervalMs: number; onError?: (error: unknown) => void },
): () => void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    scheduler
      .reconcile()
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        busy = false;
      });
  }, options.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
