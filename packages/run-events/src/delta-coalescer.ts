import type { RunEvent, RunEventBus } from './types.ts';

/** The event types whose `delta` strings are merged while they follow each other in one step. */
const DELTA_TYPES: ReadonlySet<string> = new Set(['text-delta', 'reasoning-delta']);

/** The envelope a skill's sub-run wraps its events in (`{ type, skill, toolCallId, event }`), nested per level. */
const ENVELOPE = 'skill-event';
/** Runs whose last delta time is kept at most (each is dropped at its run's end anyway). */
const MAX_TRACKED_RUNS = 100_000;
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
  /** The window: at most one delta event per run per this many ms, the longest a delta waits (default 25). */
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
  /** Publishes what the run has buffered now and forgets its window: its attempt ended, however. */
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
 * Between a worker and the bus: a run publishes at most one delta event per `maxDelayMs`. The
 * first `text-delta` after a quiet window goes at once (a first token is never held, nor are the
 * deltas of a model slower than the window); consecutive ones of the same step that come within the
 * window of the last one published (and `reasoning-delta` ones, separately; a skill's, inside its
 * `skill-event` envelopes, likewise) become one event, published when the window closes, once their
 * text passes `maxChars`, or — before it, so the stream's order is kept — when the run publishes
 * anything else (a tool call, a status, the end). A model streaming a 300-token answer in 1–4-token
 * chunks costs a handful of stream entries instead of hundreds; tool events and the end are never
 * held. A run has a timer only while it has buffered text, and a timestamp while it streams text.
 *
 * @example
 * const events = createDeltaCoalescer(bus);
 * void events.publish(run.id, { type: 'text-delta', step: 0, delta: 'Hel' }); // at once
 * void events.publish(run.id, { type: 'text-delta', step: 0, delta: 'lo, ' }); // within 25 ms: held
 * void events.publish(run.id, { type: 'text-delta', step: 0, delta: 'Ann' }); // joins it
 * await events.publish(run.id, { type: 'run-status', status: 'completed', final: true });
 * // the stream holds 'Hel', then 'lo, Ann' (one event), then the status
 */
export function createDeltaCoalescer(
  bus: Pick<RunEventBus, 'publish'>,
  options: DeltaCoalescerOptions = {},
): DeltaCoalescer {
  const maxDelayMs = options.maxDelayMs ?? 25;
  const maxChars = options.maxChars ?? 2048;
  const buffers = new Map<string, Buffered>();
  // When each run streaming text last published a delta; dropped at its next other event or its end.
  const sentAt = new Map<string, number>();
  const sent = (runId: string) => {
    if (!sentAt.has(runId) && sentAt.size >= MAX_TRACKED_RUNS) sentAt.delete(sentAt.keys().next().value!);
    sentAt.set(runId, performance.now());
  };

  const publishBuffer = (runId: string): void => {
    const buffer = buffers.get(runId);
    if (!buffer) return;
    buffers.delete(runId);
    clearTimeout(buffer.timer);
    sent(runId);
    // Called synchronously, like every publish here: the bus keeps the order of its calls.
    bus.publish(runId, withDelta(buffer.first, buffer.text)).then(() => buffer.stored.resolve(), buffer.stored.reject);
  };

  const start = (runId: string, event: RunEvent, key: string, delta: string, waitMs: number): Buffered => {
    const stored = Promise.withResolvers<void>();
    // Callers may drop the promise (the runner logs failures through its own): not an unhandled rejection.
    stored.promise.catch(() => {});
    const timer = setTimeout(() => publishBuffer(runId), waitMs);
    timer.unref();
    const buffer = { first: event, key, text: delta, timer, stored };
    buffers.set(runId, buffer);
    return buffer;
  };

  const add = (runId: string, event: RunEvent, key: string, delta: string): Promise<void> => {
    let buffer = buffers.get(runId);
    if (buffer && buffer.key !== key) {
      publishBuffer(runId);
      buffer = undefined;
    }
    if (buffer) {
      buffer.text += delta;
      if (buffer.text.length > maxChars) publishBuffer(runId);
      return buffer.stored.promise;
    }
    // The first delta after a quiet window goes at once (no delay on a first token, nor on a
    // model slower than the window); one within the window of the last waits for it to close.
    const last = sentAt.get(runId);
    const waitMs = last === undefined ? 0 : last + maxDelayMs - performance.now();
    if (waitMs <= 0 || delta.length > maxChars) {
      sent(runId);
      return bus.publish(runId, event).then(() => {});
    }
    return start(runId, event, key, delta, waitMs).stored.promise;
  };

  const flush = (runId: string): void => {
    publishBuffer(runId);
    sentAt.delete(runId);
  };

  return {
    publish(runId, published) {
      const event = published as unknown as RunEvent;
      const mergeable = deltaOf(event);
      if (mergeable) {
        return mergeable.delta === '' ? Promise.resolve() : add(runId, event, mergeable.key, mergeable.delta);
      }
      // After a tool call, a status or the like, the next delta starts a new window at once.
      flush(runId);
      return bus.publish(runId, event).then(() => {});
    },
    flush,
    buffered: () => buffers.size,
  };
}
