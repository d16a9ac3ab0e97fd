/**
 * Thrown by a job handler to put its job back in the queue after `delayMs` without spending an
 * attempt: used when a tenant is at its concurrency cap, when a conversation is busy, and when a
 * worker shuts down mid-run (the next worker resumes from the checkpoint).
 *
 * @example
 * if (!(await slots.acquire(tenantId, runId))) throw new Requeue(250, 'tenant at its concurrency cap');
 */
export class Requeue extends Error {
  readonly delayMs: number;
  constructor(delayMs: number, reason: string) {
    super(reason);
    this.name = 'Requeue';
    this.delayMs = delayMs;
  }
}

export function isRequeue(error: unknown): error is Requeue {
  return error instanceof Requeue || (error instanceof Error && error.name === 'Requeue' && 'delayMs' in error);
}
