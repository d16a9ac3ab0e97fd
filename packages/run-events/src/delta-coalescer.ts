import type { RunEvent, RunEventBus } from './types.ts';

/** The event types whose `delta` strings are merged while they follow each other in one step. */
const DELTA_TYPES: ReadonlySet<string> = new Set(['text-delta', 'reasoning-delta']);

/** The envelope a skill's sub-run wraps its events in (`{ type, skill, toolCallId, event }`), nested per level. */
const ENVELOPE = 'skill-event';
/** Envelopes looked through at most (skills call skills two deep). */
const MAX_ENVELOPES = 4;

/**
 * The text of a mergeable event — a delta, or a delta in skills' envelopes — and what it may be
 * merged with: the same envelopes (skill and call), type and step. Undefined for any other event.
 */
function deltaOf(event: RunEvent): { key: string; delta: string } | undefined {
  let key = '';
  let inner = event;
  for (let depth = 0; inner.type === ENVELOPE && depth < MAX_ENVELOPES; depth++) {
    key += `${String(inner.skill)}\u0000${String(inner.toolCallId)}\u0000`;
    if (typeof inner.event !== 'object' || inner.event === null) return undefined;
    inner = inner.event as RunEvent;
  }
  if (!DELTA_TYPES.has(inner.type) || typeof inner.delta !== 'string') return undefined;
  return { key: `${key}${inner.type}\u0000${String(inner.step)}`, delta: inner.delta };
}

/** `event` with its (innermost) delta replaced by `text`. */
function withDelta(event: RunEvent, text: string): RunEvent {
  return event.type === ENVELOPE
    ? { ...event, event: withDelta(event.event as RunEvent, text) }
    : { ...event, delta: text };
}

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
  /** What a delta must match to join (`deltaOf`). */
  key: string;
  text: string;
  timer: NodeJS.Timeout;
  stored: PromiseWithResolvers<void>;
}

/**
 * Between a worker and the bus: consecutive `text-delta` events of one step (and `reasoning-delta`
 * ones, separately; a skill's, inside its `skill-event` envelopes, likewise) become one event,
 * published `maxDelayMs` after the first of them, once their text passes `maxChars`, or — before
 * it, so the stream's order is kept — when the run publishes anything else (a tool call, a status,
 * the end). A model streaming a 300-token answer in 1–4-token chunks costs a handful of stream
 * entries instead of hundreds; tool events and the end are never held. A run has a timer only
 * while it has buffered text; nothing is kept for an idle run.
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
    bus.publish(runId, withDelta(buffer.first, buffer.text)).then(() => buffer.stored.resolve(), buffer.stored.reject);
  };

  const start = (runId: string, event: RunEvent, key: string, delta: string): Buffered => {
    const stored = Promise.withResolvers<void>();
    // Callers may drop the promise (the runner logs failures through its own): not an unhandled rejection.
    stored.promise.catch(() => {});
    const timer = setTimeout(() => flush(runId), maxDelayMs);
    timer.unref();
    const buffer = { first: event, key, text: delta, timer, stored };
    buffers.set(runId, buffer);
    return buffer;
  };

  const add = (runId: string, event: RunEvent, key: string, delta: string): Promise<void> => {
    let buffer = buffers.get(runId);
    if (buffer && buffer.key !== key) {
      flush(runId);
      buffer = undefined;
    }
    if (buffer) buffer.text += delta;
    else buffer = start(runId, event, key, delta);
    if (buffer.text.length > maxChars) flush(runId);
    return buffer.stored.promise;
  };

  return {
    publish(runId, published) {
      const event = published as unknown as RunEvent;
      const mergeable = deltaOf(event);
      if (mergeable) {
        return mergeable.delta === '' ? Promise.resolve() : add(runId, event, mergeable.key, mergeable.delta);
      }
      flush(runId);
      return bus.publish(runId, event).then(() => {});
    },
    flush,
    buffered: () => buffers.size,
  };
}
