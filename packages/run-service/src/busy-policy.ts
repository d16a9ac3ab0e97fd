import type { BusyPolicy } from '@agentry/config';
import type { Run } from '@agentry/db';
import { errors } from '@agentry/errors';

/** How long a refused message should wait before trying again, while queued runs start. */
const QUEUE_FULL_RETRY_MS = 5000;

/**
 * What a new message does to the conversation's active runs (read under its lock): with none it
 * just starts; otherwise the agent's `busy_policy` decides — `reject` throws 409
 * `conversation_busy`, `enqueue` waits, `interrupt` waits and names the active runs to cancel.
 * At `maxQueuedRuns` queued runs the message is refused 429 `conversation_queue_full`.
 *
 * @example
 * const { interrupt } = busyDecision(found.active, agent.busyPolicy, agent.limits.maxQueuedRuns);
 */
export function busyDecision(active: Run[], policy: BusyPolicy, maxQueuedRuns?: number): { interrupt: Run[] } {
  if (active.length > 0 && policy === 'reject') {
    throw errors.conflict(
      'conversation_busy',
      'This conversation is still answering the previous message; try again when it is done',
    );
  }
  if (maxQueuedRuns !== undefined && active.filter((r) => r.status === 'queued').length >= maxQueuedRuns) {
    throw errors.of({
      code: 'conversation_queue_full',
      message: `This conversation already holds ${maxQueuedRuns} queued runs; retry once one has started`,
      category: 'user',
      retryable: true,
      retryAfterMs: QUEUE_FULL_RETRY_MS,
    });
  }
  return { interrupt: policy === 'interrupt' ? active : [] };
}
