import type { AgentEventBody, EventSink } from './events.ts';

/**
 * Sends one event body; adds sequence number, time and trace id. Returns a promise only when the
 * sink is asynchronous, so a hot path (one call per text delta) can skip the await otherwise.
 */
export type Emit = (body: AgentEventBody) => void | Promise<void>;

/**
 * Wraps the caller's sink so every event carries `seq`, `at` and `traceId`. `firstSeq` continues
 * the numbering of a run whose events an earlier emitter sent (a flow after the model's turn).
 *
 * @example
 * const emit = createEmitter(options.onEvent, 'trace-1');
 * await emit({ type: 'step-started', step: 0 });
 */
export function createEmitter(sink: EventSink | undefined, traceId: string | undefined, firstSeq = 0): Emit {
  // Nobody listens: nothing to stamp (a delta per chunk would build two objects for nothing).
  if (!sink) return () => undefined;
  let seq = firstSeq;
  if (traceId === undefined) return (body) => sink({ ...body, seq: seq++, at: Date.now() });
  return (body) => sink({ ...body, seq: seq++, at: Date.now(), traceId });
}
