/** Every status a stored run can have, in lifecycle order. */
export const RUN_STATUSES = ['queued', 'running', 'waiting', 'completed', 'failed', 'cancelled', 'timed_out'] as const;

export type RunStatus = (typeof RUN_STATUSES)[number];

/** Statuses after which a run never changes again. */
export const FINAL_RUN_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled', 'timed_out'];

/** Whether a run with this status never changes again (accepts any string, e.g. from an event). */
export function isFinalRunStatus(status: string): boolean {
  return (FINAL_RUN_STATUSES as readonly string[]).includes(status);
}
