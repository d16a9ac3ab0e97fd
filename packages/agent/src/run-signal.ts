/** The run's own abort signal: the caller's cancellation and the wall-clock timeout in one. */
export interface RunSignal {
  signal: AbortSignal;
  /** Why the run was stopped from outside, if it was. */
  stopStatus(): 'cancelled' | 'timed_out' | undefined;
  dispose(): void;
}

/**
 * Combines the caller's signal with a timeout and remembers which one fired first.
 *
 * @example
 * const run = createRunSignal(options.signal, 30_000);
 * try { await work(run.signal); } finally { run.dispose(); }
 */
export function createRunSignal(outer?: AbortSignal, timeoutMs?: number): RunSignal {
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
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => stop('timed_out', new DOMException('The run timed out', 'TimeoutError')), timeoutMs);
  return {
    signal: controller.signal,
    stopStatus: () => status,
    dispose: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    },
  };
}
