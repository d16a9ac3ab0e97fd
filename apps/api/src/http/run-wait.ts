import type { RunEventBus } from '@agentry/run-events';
import { giveBackAdmissionTurn } from './admission.ts';
import type { RunFinishWatch } from './run-finish-watch.ts';

/**
 * Waits until a run's event stream says it ended (a `final` event) — or, with `orParked`, that it
 * parked for a person (`run-status` `waiting`: only for a new run, whose stream holds no earlier
 * pause) — at most `timeoutMs`. The API
 * waits on the run itself, not on a queue job: a run may be dispatched more than once (parked at its
 * tenant's cap, woken behind its conversation's earlier run, retried after a fault). When the bus
 * fails (Redis down), the wait goes on through the database's run-finished notifications
 * (`runFinishes`); without them it ends early as a timeout, and the caller answers from the
 * database (202 and `Location` for a run still going).
 *
 * @example
 * if ((await waitForRunEnd(deps.events, run.id, deps.runWaitMs, deps.runFinishes)) === 'timeout') return c.json(view, 202);
 */
export async function waitForRunEnd(
  events: RunEventBus,
  runId: string,
  timeoutMs: number,
  runFinishes?: RunFinishWatch,
  options: { orParked?: boolean } = {},
): Promise<'finished' | 'timeout'> {
  // Waiting does no database work: the request's admission turn goes to someone else meanwhile.
  giveBackAdmissionTurn();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    for await (const record of events.subscribe(runId, {
      signal: controller.signal,
      endWhenUnavailable: runFinishes !== undefined,
    })) {
      if (record.event.final === true) return 'finished';
      if (options.orParked && record.event.type === 'run-status' && record.event.status === 'waiting')
        return 'finished';
    }
    return 'timeout';
  } catch {
    if (!runFinishes || controller.signal.aborted) return 'timeout';
    return (await runFinishes.wait(runId, controller.signal).catch(() => undefined)) ? 'finished' : 'timeout';
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
