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

/** The memory bus's limits: the bus's own, and how many events finished runs keep in all. */
export interface MemoryBusLimits extends RunEventBusLimits {
  /**
   * Events of finished runs kept in all (oldest finished run dropped first). The finished TTL alone
   * let memory grow with throughput: a streamed run keeps dozens of events, and an hour of runs at
   * ten a second is tens of thousands of runs. A reader of a dropped run still gets its final status.
   */
  maxFinishedEvents: number;
}

/**
 * About a minute of history at the embedded mode's full throughput (≈ 40 streamed runs/s), far more
 * at a normal pace. 100,000 kept the embedded process's memory growing for the first five minutes
 * of a streaming soak, to 45 MiB more than with 25,000 (≈ 0.6 KiB per event: 25,000 ≈ 15 MiB);
 * a late reader of a dropped run still gets its final status.
 */
export const defaultMemoryBusLimits: MemoryBusLimits = { ...defaultLimits, maxFinishedEvents: 25_000 };

/**
 * The embedded mode's bus: same contract as the Redis one, inside one process.
 *
 * @example
 * const bus = createMemoryBus();
 */
export function createMemoryBus(limits: Partial<MemoryBusLimits> = {}): RunEventBus {
  const { maxEventsPerRun, ttlSeconds, finishedTtlSeconds, maxFinishedEvents } = {
    ...defaultMemoryBusLimits,
    ...limits,
  };
  const streams = new Map<string, Stream>();
  /** Finished runs, oldest first, with the events each counted when it finished. */
  const finished = new Map<string, number>();
  let finishedEvents = 0;
  const live = new EventEmitter();
  live.setMaxListeners(0);

  const drop = (runId: string) => {
    const stream = streams.get(runId);
    if (stream) clearTimeout(stream.expiry);
    streams.delete(runId);
    finishedEvents -= finished.get(runId) ?? 0;
    finished.delete(runId);
  };

  const markFinished = (runId: string, stream: Stream) => {
    clearTimeout(stream.expiry);
    stream.expiry = setTimeout(() => drop(runId), finishedTtlSeconds * 1000).unref();
    finishedEvents -= finished.get(runId) ?? 0;
    finished.delete(runId);
    finished.set(runId, stream.records.length);
    finishedEvents += stream.records.length;
    // The newest finished run stays whatever its size: its own readers are the likeliest.
    for (const oldest of finished.keys()) {
      if (finishedEvents <= maxFinishedEvents || oldest === runId) break;
      drop(oldest);
    }
  };

  const streamFor = (runId: string): Stream => {
    let stream = streams.get(runId);
    if (!stream) {
      stream = {
        records: [],
        next: 1,
        expiry: setTimeout(() => drop(runId), ttlSeconds * 1000).unref(),
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
      if (stream.records.length > maxEventsPerRun) stream.records.shift();
      // Finished runs are kept only briefly (and only so many) for late readers, so memory does not
      // grow with history.
      if (event.final) markFinished(runId, stream);
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
      finished.clear();
      finishedEvents = 0;
    },
  };
}
