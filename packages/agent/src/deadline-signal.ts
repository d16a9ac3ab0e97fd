/** A signal that follows a caller's and a deadline, and can be let go of before either fires. */
export interface DeadlineSignal {
  signal: AbortSignal;
  /** Why the signal was stopped, if it was: the caller's abort (`cancelled`) or the deadline. */
  stopStatus(): 'cancelled' | 'timed_out' | undefined;
  /** Clears the timer and the listener on the caller's signal; call it when the work is over. */
  dispose(): void;
}

/**
 * Combines the caller's signal with a timeout and remembers which one fired first. Unlike
 * `AbortSignal.any([outer, AbortSignal.timeout(ms)])`, nothing outlives `dispose()`: that pair keeps
 * its timer, both signals and their weak links alive for the whole timeout, so every finished tool
 * call would hold them for (up to) minutes.
 *
 * @example
 * const run = createDeadlineSignal(options.signal, 30_000);
 * try { await work(run.signal); } finally { run.dispose(); }
 */
export function createDeadlineSignal(
  outer?: AbortSignal,
  timeoutMs?: number,
  timeoutMessage = 'The operation timed out',
): DeadlineSignal {
  const controller = new AbortController();
  let status: 'cancelled' | 'timed_out' | undefined;
  const stop = (why: 'cancelled' | 'timed_out', reason: unknown) => {
    if (status) return;
    status = why;
    controller.abort(reason);
  };
  const onOuterAbort = () => stop('cancelled', outer?.reason);
  if (outer?.aborted) onOuterAbort();
  else outer?.addEventListener('abort', onOuterAbort, { once: true });
  const timer =
    timeoutMs === undefined || status
      ? undefined
      : setTimeout(() => stop('timed_out', new DOMException(timeoutMessage, 'TimeoutError')), timeoutMs);
  return {
    signal: controller.signal,
    stopStatus: () => status,
    dispose: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    },
  };
}
