import type { AgentEventBody, EventSink } from './events.ts';

/** Sends one event body; adds sequence number, time and trace id. */
export type Emit = (body: AgentEventBody) => Promise<void>;

/**
 * Wraps the caller's sink so every event carries `seq`, `at` and `traceId`.
 *
 * @example
 * const emit = createEmitter(options.onEvent, 'trace-1');
 * await emit({ type: 'step-started', step: 0 });
 */
export function createEmitter(sink: EventSink | undefined, traceId: string | undefined): Emit {
  let seq = 0;
  return async (body) => {
    const meta = { seq: seq++, at: Date.now(), ...(traceId === undefined ? {} : { traceId }) };
    if (sink) await sink({ ...body, ...meta });
  };
}
