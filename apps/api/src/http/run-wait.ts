import type { RunEventBus } from '@agentry/run-events';

/**
 * Waits until a run's event stream says it ended (a `final` event), at most `timeoutMs`. The API
 * waits on the run itself, not on a queue job: a run may be dispatched more than once (parked at its
 * tenant's cap, woken behind its conversation's earlier run, retried after a fault). A bus that
 * fails (Redis down) ends the wait early as a timeout: the caller then answers from the database
 * (202 and `Location` for a run still going).
 *
 * @example
 * if ((await waitForRunEnd(deps.events, run.id, deps.runWaitMs)) === 'timeout') return c.json(view, 202);
 */
export async function waitForRunEnd(
  events: RunEventBus,
  runId: string,
  timeoutMs: number,
): Promise<'finished' | 'timeout'> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    for await (const record of events.subscribe(runId, { signal: controller.signal })) {
      if (record.event.final === true) return 'finished';
    }
    return 'timeout';
  } catch {
    return 'timeout';
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
