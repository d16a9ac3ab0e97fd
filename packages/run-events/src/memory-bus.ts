import { EventEmitter, on } from 'node:events';
import {
  defaultLimits,
  type RunEvent,
  type RunEventBus,
  type RunEventBusLimits,
  type RunEventRecord,
  type SubscribeOptions,
} from './types.ts';

interface Stream {
  records: RunEventRecord[];
  next: number;
  expiry: NodeJS.Timeout;
}

/**
 * The embedded mode's bus: same contract as the Redis one, inside one process.
 *
 * @example
 * const bus = createMemoryBus();
 */
export function createMemoryBus(limits: RunEventBusLimits = defaultLimits): RunEventBus {
  const streams = new Map<string, Stream>();
  const live = new EventEmitter();
  live.setMaxListeners(0);

  const streamFor = (runId: string): Stream => {
    let stream = streams.get(runId);
    if (!stream) {
      stream = {
        records: [],
        next: 1,
        expiry: setTimeout(() => streams.delete(runId), limits.ttlSeconds * 1000).unref(),
      };
      streams.set(runId, stream);
    }
    return stream;
  };

  return {
    async publish<E extends { type: string; final?: boolean }>(runId: string, event: E): Promise<string> {
      const stream = streamFor(runId);
      const record = { id: String(stream.next++), event: event as unknown as RunEvent };
      stream.records.push(record);
      if (stream.records.length > limits.maxEventsPerRun) stream.records.shift();
      if (event.final) {
        // Finished runs are kept only briefly for late readers, so memory does not grow with history.
        clearTimeout(stream.expiry);
        stream.expiry = setTimeout(() => streams.delete(runId), limits.finishedTtlSeconds * 1000).unref();
      }
      live.emit(runId, record);
      return record.id;
    },

    async *subscribe(runId: string, options: SubscribeOptions = {}): AsyncIterable<RunEventRecord> {
      const after = Number(options.after ?? 0) || 0;
      // Listen before replaying so nothing published in between is missed; ids dedupe the overlap.
      const controller = new AbortController();
      const onAbort = () => controller.abort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const incoming = on(live, runId, { signal: controller.signal });
      let last = after;
      try {
        for (const record of streams.get(runId)?.records ?? []) {
          if (Number(record.id) <= last) continue;
          last = Number(record.id);
          yield record;
          if (record.event.final) return;
        }
        for await (const [record] of incoming as AsyncIterable<[RunEventRecord]>) {
          if (Number(record.id) <= last) continue;
          last = Number(record.id);
          yield record;
          if (record.event.final) return;
        }
      } catch (error) {
        if (!(error instanceof Error && error.name === 'AbortError')) throw error;
      } finally {
        options.signal?.removeEventListener('abort', onAbort);
        controller.abort();
      }
    },

    async has(runId: string) {
      return streams.has(runId);
    },

    async lastId(runId: string) {
      return streams.get(runId)?.records.at(-1)?.id;
    },

    async close() {
      for (const stream of streams.values()) clearTimeout(stream.expiry);
      streams.clear();
    },
  };
}
