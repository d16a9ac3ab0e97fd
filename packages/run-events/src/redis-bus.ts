import { Redis } from 'ioredis';
import { followStream } from './follow-stream.ts';
import { createOrderedSender } from './ordered-sender.ts';
import { createSharedReader, type SharedReader } from './shared-reader.ts';
import {
  defaultLimits,
  type RunEventBus,
  type RunEventBusLimits,
  RunEventBusUnavailableError,
  type RunEventRecord,
  type SubscribeOptions,
} from './types.ts';

export interface RedisBusOptions {
  redisUrl: string;
  /** Key prefix, shared with the queue's so one prefix isolates a deployment (or a test). */
  prefix?: string;
  limits?: RunEventBusLimits;
  /**
   * How long one shared blocking read waits when nothing arrives (new subscribers and aborts do
   * not wait for it; it bounds how long a silently dead connection goes unnoticed).
   */
  blockMs?: number;
  /** Blocking connections that read for every subscriber of this process (default 2). */
  readerConnections?: number;
  /** Events queued per subscriber before a slow one is let go to catch up on its own (default 512). */
  subscriberBuffer?: number;
  /** A reader's pause between reads per stream it reads, and its longest (ms; `readPauseMs`). */
  readPausePerStreamMs?: number;
  maxReadPauseMs?: number;
}

/** What the bus reports for metrics (sampled on scrape). */
export interface RunEventBusStats {
  /** Open subscriptions. */
  subscriptions: number;
  /** Of these, the ones fed by the shared read (the rest replay history or catch up after lagging). */
  following: number;
  /** Run streams in the shared blocking reads. */
  streams: number;
  /** Blocking reader connections open (at most `readerConnections`). */
  readerConnections: number;
}

/** The Redis bus, with its figures for `/metrics`. */
export interface RedisRunEventBus extends RunEventBus {
  stats(): RunEventBusStats;
}

/**
 * Run events on Redis Streams: one capped, expiring stream per run (`XADD … MAXLEN ~`). A
 * subscriber replays with XRANGE from the requested id, then follows the process's shared
 * blocking read (`shared-reader.ts`: a fixed pool of connections reading every followed run in one
 * `XREAD`), so a client that reconnects with Last-Event-ID gets exactly what it missed, and 1,000
 * open streams cost 1 command connection plus `readerConnections`, not 1,000.
 *
 * @example
 * const bus = createRedisBus({ redisUrl: 'redis://127.0.0.1:6379' });
 */
export function createRedisBus(options: RedisBusOptions): RedisRunEventBus {
  const limits = options.limits ?? defaultLimits;
  const prefix = options.prefix ?? 'agentry';
  const pageSize = 256;
  const writer = new Redis(options.redisUrl, {
    maxRetriesPerRequest: 3,
    // Not auto-pipelined: that holds a command until the event loop's next check phase
    // (setImmediate), ≈ 1–2 ms per event on the way to the client while the worker goes on with the
    // run (measured, BENCHMARKS.md). Events go through `events` instead: at once, or together.
    enableAutoPipelining: false,
    connectionName: `${prefix}:run-events:writer`,
  });
  // One ordered sender keeps a run's events, and its stream's expiry after its first event, in order.
  const events = createOrderedSender(writer);
  const expiring = new Set<string>();
  writer.on('error', () => {});
  // Subscribers that asked to hear of it (`endWhenUnavailable`) end when the connection drops;
  // the others wait, and ioredis reconnects. Redis going away closes every connection at once,
  // so the command connection speaks for the readers too.
  const unavailable = new Set<(error: RunEventBusUnavailableError) => void>();
  let down = false;
  writer.on('close', () => {
    if (closed) return;
    down = true;
    const error = new RunEventBusUnavailableError('The run event bus lost its Redis connection');
    for (const fail of [...unavailable]) fail(error);
  });
  writer.on('ready', () => {
    down = false;
  });
  let sharedReader: SharedReader | undefined;
  let closed = false;
  // Created on the first subscription: a worker only publishes and opens no reader.
  const reader = (): SharedReader =>
    (sharedReader ??= createSharedReader({
      writer,
      prefix,
      connections: Math.max(1, options.readerConnections ?? 2),
      blockMs: options.blockMs ?? 5000,
      count: pageSize,
      inboxCapacity: Math.max(1, options.subscriberBuffer ?? 512),
      ...(options.readPausePerStreamMs !== undefined ? { readPausePerStreamMs: options.readPausePerStreamMs } : {}),
      ...(options.maxReadPauseMs !== undefined ? { maxReadPauseMs: options.maxReadPauseMs } : {}),
    }));
  const subscriptions = new Set<() => void>();
  const key = (runId: string) => `${prefix}:run-events:${runId}`;

  return {
    async publish<E extends { type: string; final?: boolean }>(runId: string, event: E): Promise<string> {
      const k = key(runId);
      const added = events.send('xadd', [k, 'MAXLEN', '~', limits.maxEventsPerRun, '*', 'e', JSON.stringify(event)]);
      // The expiry is set when a run's stream starts and shortened when it ends, not on every
      // event: a run publishes dozens of deltas, and one command each is what they cost.
      if (event.final) {
        events.send('expire', [k, limits.finishedTtlSeconds]).catch(() => {});
        expiring.delete(runId);
      } else if (!expiring.has(runId)) {
        expiring.add(runId);
        if (expiring.size > 10_000) expiring.delete(expiring.values().next().value!);
        events.send('expire', [k, limits.ttlSeconds]).catch(() => {});
      }
      return (await added) as string;
    },

    async *subscribe(runId: string, subscribeOptions: SubscribeOptions = {}): AsyncIterable<RunEventRecord> {
      if (closed) return;
      const context = { writer, reader: reader(), pageSize, subscriptions, unavailable, isUnavailable: () => down };
      yield* followStream(context, key(runId), subscribeOptions);
    },

    async has(runId: string) {
      return (await writer.exists(key(runId))) === 1;
    },

    async lastId(runId: string) {
      const [last] = (await writer.xrevrange(key(runId), '+', '-', 'COUNT', 1)) as Array<[string, string[]]>;
      return last?.[0];
    },

    stats() {
      const shared = sharedReader?.stats();
      return {
        subscriptions: subscriptions.size,
        following: shared?.following ?? 0,
        streams: shared?.streams ?? 0,
        readerConnections: shared?.readerConnections ?? 0,
      };
    },

    async close() {
      closed = true;
      for (const end of [...subscriptions]) end();
      await sharedReader?.close();
      await writer.quit().catch(() => writer.disconnect());
    },
  };
}
