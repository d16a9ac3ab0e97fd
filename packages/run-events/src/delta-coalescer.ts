import type { RunEvent, RunEventBus } from './types.ts';

/** The event types whose `delta` strings are merged while they follow each other in one step. */
const DELTA_TYPES: ReadonlySet<string> = new Set(['text-delta', 'reasoning-delta']);

export interface DeltaCoalescerOptions {
  /** Longest a delta waits, from the first delta of its buffer (default 25 ms). */
  maxDelayMs?: number;
  /** Buffered text (UTF-16 code units) past which the buffer goes at once (default 2048). */
  maxChars?: number;
}

/** Publishes a worker's run events, merging each run's consecutive deltas into fewer events. */
export interface DeltaCoalescer {
  /**
   * A delta joins its run's buffer (settles when the merged event is stored; an empty delta at
   * once, unpublished); any other event is published after the run's buffer, at once.
   */
  publish<E extends { type: string; final?: boolean }>(runId: string, event: E): Promise<void>;
  /** Publishes what the run has buffered now (its end, whatever the end is). */
  flush(runId: string): void;
  /** Runs with buffered text now. */
  buffered(): number;
}

interface Buffered {
  /** The buffer's first delta: the merged event keeps its fields (step, seq, at) with the joined text. */
  first: RunEvent;
  text: string;
  timer: NodeJS.Timeout;
  stored: PromiseWithResolvers<void>;
}

/**
 * Between a worker and the bus: consecutive `text-delta` events of one step (and `reasoning-delta`
 * ones, separately) become one event, published `maxDelayMs` after the first of them, once their
 * text passes `maxChars`, or — before it, so the stream's order is kept — when the run publishes
 * anything else (a tool call, a status, the end). A model streaming a 300-token answer in 1–4-token
 * chunks costs a handful of stream entries instead of hundreds; tool events and the end are never
 * held. A run has a timer only while it has buffered text; nothing is kept for an idle run.
 *
 * @example
 * const events = createDeltaCoalescer(bus);
 * void events.publish(run.id, { type: 'text-delta', step: 0, delta: 'Hel' });
 * void events.publish(run.id, { type: 'text-delta', step: 0, delta: 'lo' });
 * await events.publish(run.id, { type: 'run-status', status: 'completed', final: true });
 * // the stream holds { type: 'text-delta', step: 0, delta: 'Hello' }, then the status
 */
export function createDeltaCoalescer(
  bus: Pick<RunEventBus, 'publish'>,
  options: DeltaCoalescerOptions = {},
): DeltaCoalescer {
  const maxDelayMs = options.maxDelayMs ?? 25;
  const maxChars = options.maxChars ?? 2048;
  const buffers = new Map<string, Buffered>();

  const flush = (runId: string): void => {
    const buffer = buffers.get(runId);
    if (!buffer) return;
    buffers.delete(runId);
    clearTimeout(buffer.timer);
    // Called synchronously, like every publish here: the bus keeps the order of its calls.
    bus
      .publish(runId, { ...buffer.first, delta: buffer.text })
      .then(() => buffer.stored.resolve(), buffer.stored.reject);
  };

  const start = (runId: string, event: RunEvent, delta: string): Buffered => {
    const stored = Promise.withResolvers<void>();
    // Callers may drop the promise (the runner logs failures through its own): not an unhandled rejection.
    stored.promise.catch(() => {});
    const timer = setTimeout(() => flush(runId), maxDelayMs);
    timer.unref();
    const buffer = { first: event, text: delta, timer, stored };
    buffers.set(runId, buffer);
    return buffer;
  };

  const add = (runId: string, event: RunEvent, delta: string): Promise<void> => {
    let buffer = buffers.get(runId);
    if (buffer && (buffer.first.type !== event.type || buffer.first.step !== event.step)) {
      flush(runId);
      buffer = undefined;
    }
    if (buffer) buffer.text += delta;
    else buffer = start(runId, event, delta);
    if (buffer.text.length > maxChars) flush(runId);
    return buffer.stored.promise;
  };

  return {
    publish(runId, published) {
      const event = published as unknown as RunEvent;
      if (DELTA_TYPES.has(event.type) && typeof event.delta === 'string') {
        return event.delta === '' ? Promise.resolve() : add(runId, event, event.delta);
      }
      flush(runId);
      return bus.publish(runId, event).then(() => {});
    },
    flush,
    buffered: () => buffers.size,
  };
}
