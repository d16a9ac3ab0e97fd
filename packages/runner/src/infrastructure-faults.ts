import type { AppError } from '@agentry/errors';

/**
 * Backoff of a run whose attempt met an infrastructure fault (database or queue unavailable): it is
 * retried without spending one of the job's attempts, 1 s, 2 s, 4 s … up to 30 s apart, for as long
 * as the fault lasts. A run fails only for its own reasons (model, tools, limits, config).
 */
const INFRA_BACKOFF_MS = { first: 1000, max: 30_000 };

/** Codes of the faults of what a run stands on, never of the run itself. */
const INFRASTRUCTURE_CODES = new Set(['database_unavailable', 'queue_unavailable']);

/** True for a database or queue fault: transient, whatever the job's attempts say. */
export function isInfrastructureFault(error: AppError): boolean {
  return INFRASTRUCTURE_CODES.has(error.code);
}

/** Infrastructure faults in a row per run, and the backoff they give. */
export interface InfrastructureBackoff {
  /** The next backoff of a run meeting an infrastructure fault (grows per fault in a row). */
  next(runId: string): number;
  /** The run's attempt got through: its next fault starts again at the first delay. */
  forget(runId: string): void;
}

/**
 * @example
 * const faults = createInfrastructureBackoff();
 * throw new Requeue(faults.next(run.id), 'database_unavailable'); // 1000, then 2000, 4000 … 30000
 */
export function createInfrastructureBackoff(): InfrastructureBackoff {
  /** Bounded like the runs in flight: only runs that fault right now are kept. */
  const faults = new Map<string, number>();
  return {
    next(runId) {
      const count = (faults.get(runId) ?? 0) + 1;
      // Bounded: only runs that fault right now are kept.
      if (faults.size >= 10_000) faults.clear();
      faults.set(runId, count);
      return Math.min(INFRA_BACKOFF_MS.max, INFRA_BACKOFF_MS.first * 2 ** (count - 1));
    },
    forget(runId) {
      faults.delete(runId);
    },
  };
}
