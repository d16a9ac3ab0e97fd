/** Any JSON event of a run; `type` names it. Events with `final: true` end every subscription. */
export interface RunEvent {
  type: string;
  final?: boolean;
  [key: string]: unknown;
}

/** An event as stored: `id` is its position in the run's stream, usable as SSE id / resume point. */
export interface RunEventRecord {
  id: string;
  event: RunEvent;
  /** The event's JSON as the bus stored it, when it has it: relays send it as is instead of serialising `event` again. */
  json?: string;
}

export interface SubscribeOptions {
  /** Resume after this id (exclusive); omitted = from the run's first event. */
  after?: string;
  signal?: AbortSignal;
  /**
   * End with a {@link RunEventBusUnavailableError} thrown out of the iteration as soon as the bus
   * loses its connection (or cannot reach its store), instead of waiting for it to come back (the
   * default). For relays that have another source to turn to, such as the run's database row.
   */
  endWhenUnavailable?: boolean;
}

/**
 * Thrown out of a subscription opened with `endWhenUnavailable` when the bus lost its connection:
 * the events from then on are unknown to this subscriber (they may be published or lost).
 *
 * @example
 * try { for await (const r of bus.subscribe(id, { endWhenUnavailable: true })) send(r); }
 * catch (error) { if (error instanceof RunEventBusUnavailableError) fallBackToTheDatabase(); else throw error; }
 */
export class RunEventBusUnavailableError extends Error {
  constructor(message = 'The run event bus lost its connection', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RunEventBusUnavailableError';
  }
}

/**
 * The per-run event stream: workers publish, API streams relay. Bounded and expiring, so a
 * forgotten run costs nothing forever. Redis Streams in production, memory in the embedded mode.
 *
 * @example
 * await bus.publish(runId, { type: 'text-delta', delta: 'Hi' });
 * for await (const { id, event } of bus.subscribe(runId, { after: lastEventId })) send(id, event);
 */
export interface RunEventBus {
  publish<E extends { type: string; final?: boolean }>(runId: string, event: E): Promise<string>;
  /** Replays stored events after `after`, then follows live ones until a final event or abort. */
  subscribe(runId: string, options?: SubscribeOptions): AsyncIterable<RunEventRecord>;
  /** Whether the run still has a stream (false once it expired or before its first event). */
  has(runId: string): Promise<boolean>;
  /**
   * The id of the stream's newest event (undefined without one): a reader that wants only what
   * comes next (an inbox opened now) subscribes `after` it.
   */
  lastId?(runId: string): Promise<string | undefined>;
  close(): Promise<void>;
}

export interface RunEventBusLimits {
  /** Events kept per run (oldest trimmed first). */
  maxEventsPerRun: number;
  /** Seconds a running run's stream is kept (from its first event). */
  ttlSeconds: number;
  /** Seconds a finished run's stream stays for late or reconnecting readers. */
  finishedTtlSeconds: number;
}

export const defaultLimits: RunEventBusLimits = {
  maxEventsPerRun: 20_000,
  ttlSeconds: 24 * 3600,
  finishedTtlSeconds: 3600,
};
