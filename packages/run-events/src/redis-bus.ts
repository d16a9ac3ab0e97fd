import { Redis } from 'ioredis';
import {
  defaultLimits,
  type RunEvent,
  type RunEventBus,
  type RunEventBusLimits,
  type RunEventRecord,
  type SubscribeOptions,
} from './types.ts';

export interface RedisBusOptions {
  redisUrl: string;
  /** Key prefix, shared with the queue's so one prefix isolates a deployment (or a test). */
  prefix?: string;
  limits?: RunEventBusLimits;
  /** How long one blocking read waits before checking for abort again. */
  blockMs?: number;
}

/**
 * Run events on Redis Streams: one capped, expiring stream per run (`XADD … MAXLEN ~`), read with
 * `XREAD BLOCK` from the requested id, so a client that reconnects with Last-Event-ID gets exactly
 * what it missed.
 *
 * @example
 * const bus = createRedisBus({ redisUrl: 'redis://127.0.0.1:6379' });
 */
export function createRedisBus(options: RedisBusOptions): RunEventBus {
  const limits = options.limits ?? defaultLimits;
  const prefix = options.prefix ?? 'agentry';
  const blockMs = options.blockMs ?? 5000;
  // Auto-pipelining sends the commands of one tick together; one connection keeps them in order.
  const writer = new Redis(options.redisUrl, { maxRetriesPerRequest: 3, enableAutoPipelining: true });
  const expiring = new Set<string>();
  writer.on('error', () => {});
  const readers = new Set<Redis>();
  const key = (runId: string) => `${prefix}:run-events:${runId}`;

  return {
    async publish<E extends { type: string; final?: boolean }>(runId: string, event: E): Promise<string> {
      const k = key(runId);
      const added = writer.xadd(k, 'MAXLEN', '~', String(limits.maxEventsPerRun), '*', 'e', JSON.stringify(event));
      // The expiry is set when a run's stream starts and shortened when it ends, not on every
      // event: a run publishes dozens of deltas, and one command each is what they cost.
      if (event.final) {
        void writer.expire(k, limits.finishedTtlSeconds).catch(() => {});
        expiring.delete(runId);
      } else if (!expiring.has(runId)) {
        expiring.add(runId);
        if (expiring.size > 10_000) expiring.delete(expiring.values().next().value!);
        void writer.expire(k, limits.ttlSeconds).catch(() => {});
      }
      return (await added) as string;
    },

    async *subscribe(runId: string, subscribeOptions: SubscribeOptions = {}): AsyncIterable<RunEventRecord> {
      // A blocking read holds its connection, so each subscriber reads on its own.
      const reader = writer.duplicate();
      reader.on('error', () => {});
      readers.add(reader);
      const onAbort = () => reader.disconnect();
      subscribeOptions.signal?.addEventListener('abort', onAbort, { once: true });
      let last = subscribeOptions.after ?? '0';
      try {
        while (!subscribeOptions.signal?.aborted) {
          const reply = (await reader.xread('COUNT', 500, 'BLOCK', blockMs, 'STREAMS', key(runId), last)) as Array<
            [string, Array<[string, string[]]>]
          > | null;
          for (const [id, fields] of reply?.[0]?.[1] ?? []) {
            last = id;
            const event = JSON.parse(fields[1] ?? '{}') as RunEvent;
            yield { id, event };
            if (event.final) return;
          }
        }
      } catch (error) {
        if (!subscribeOptions.signal?.aborted) throw error;
      } finally {
        subscribeOptions.signal?.removeEventListener('abort', onAbort);
        readers.delete(reader);
        reader.disconnect();
      }
    },

    async has(runId: string) {
      return (await writer.exists(key(runId))) === 1;
    },

    async close() {
      for (const reader of readers) reader.disconnect();
      await writer.quit().catch(() => writer.disconnect());
    },
  };
}
