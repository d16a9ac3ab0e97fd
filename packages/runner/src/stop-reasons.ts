/**
 * Why an attempt's loop was stopped: a cancel request from the API, the worker shutting down (the
 * run goes back to the queue from its last checkpoint), or a heartbeat that found the run taken by
 * a newer attempt (this one may no longer write).
 */
export type StopReason = 'cancel' | 'shutdown' | 'stale';

/** Stops an attempt's loop for `reason` (its model stream and pending tools are aborted). */
export function stopAttempt(controller: AbortController, reason: StopReason): void {
  controller.abort(reason);
}

/** Why the attempt's loop was stopped; undefined when it was not. */
export function stopReasonOf(controller: AbortController): StopReason | undefined {
  return controller.signal.reason as StopReason | undefined;
}

/** The attempts running in this process (one stop controller per run) and the processor's shutdown. */
export interface ActiveAttempts {
  /** True once `shutdown` began: new jobs go back to the queue, running loops stop at a checkpoint. */
  readonly stopping: boolean;
  /** The controller of a run's attempt, registered until {@link ActiveAttempts.end}. */
  begin(runId: string): AbortController;
  end(runId: string): void;
  /** A cancel request: the run's attempt in this process, if any, stops. */
  cancel(runId: string): void;
  /** Lets running steps reach their checkpoint, then stops what still runs (after 80 % of `deadlineMs`). */
  shutdown(deadlineMs: number): Promise<void>;
}

/**
 * @example
 * const attempts = createActiveAttempts();
 * const controller = attempts.begin(run.id);
 * try { … } finally { attempts.end(run.id); }
 */
export function createActiveAttempts(): ActiveAttempts {
  const active = new Map<string, AbortController>();
  let stopping = false;
  return {
    get stopping() {
      return stopping;
    },
    begin(runId) {
      const controller = new AbortController();
      active.set(runId, controller);
      return controller;
    },
    end(runId) {
      active.delete(runId);
    },
    cancel(runId) {
      const controller = active.get(runId);
      if (controller) stopAttempt(controller, 'cancel');
    },
    async shutdown(deadlineMs) {
      stopping = true;
      // Let running steps reach their checkpoint, then cut what is still running.
      const until = Date.now() + deadlineMs * 0.8;
      while (active.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      for (const controller of active.values()) stopAttempt(controller, 'shutdown');
    },
  };
}
