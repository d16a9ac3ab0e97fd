import type { RunEvent, RunEventBus } from '@agentry/run-events';
import { processMetrics } from '@agentry/telemetry';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { perTick, sseFrame } from './sse-batches.ts';

const HEARTBEAT_MS = 15_000;

/**
 * The open live streams of an API process: they never end on their own, so shutting down ends
 * them (the clients reconnect elsewhere with `Last-Event-ID`) instead of waiting for them forever.
 */
export interface LiveStreams {
  track(controller: AbortController): () => void;
  closeAll(): void;
}

/**
 * @example
 * const live = createLiveStreams(); // on shutdown: live.closeAll(), then server.close()
 */
export function createLiveStreams(): LiveStreams {
  const open = new Set<AbortController>();
  return {
    track(controller) {
      open.add(controller);
      return () => open.delete(controller);
    },
    closeAll() {
      for (const controller of open) controller.abort();
      open.clear();
    },
  };
}

/**
 * Relays a long-lived bus stream (a tenant's inbox, a conversation's people events) as
 * Server-Sent Events until the client leaves. Without `Last-Event-ID` (or `?after=`) it starts at
 * the stream's end: what happens from now on (the client read the current state first); with one,
 * it resumes exactly after it; the events of one bus read go in one write. `map` shapes each event
 * for the caller (undefined: not shown; ids still advance). The reader blocks on the bus: an idle
 * stream costs a heartbeat comment every 15 s.
 * `fromStart`: from the stream's first event instead (a test run's progress); `only`: just this
 * event (what already ended), then the end.
 *
 * @example
 * return streamLiveEvents(c, deps.events, inboxStreamKey(tenantId), release, (e) => e);
 */
export function streamLiveEvents(
  c: Context,
  bus: RunEventBus,
  key: string,
  release: () => void,
  map: (event: RunEvent) => Record<string, unknown> | undefined,
  registry?: LiveStreams,
  options: { fromStart?: boolean; only?: RunEvent } = {},
): Response {
  const resume = c.req.header('last-event-id') ?? c.req.query('after');
  return streamSSE(c, async (stream) => {
    const activeStreams = processMetrics().sseActiveStreams;
    activeStreams.inc();
    const controller = new AbortController();
    stream.onAbort(() => controller.abort());
    const untrack = registry?.track(controller);
    const heartbeat = setInterval(() => {
      void stream.write(': ping\n\n');
    }, HEARTBEAT_MS);
    try {
      const after = resume ?? (options.fromStart ? undefined : await bus.lastId?.(key));
      // A comment first: the client knows the stream is open (and proxies flush their headers).
      await stream.write(': open\n\n');
      // Something that already ended (its stream may have expired): its last word, then the end.
      if (options.only) {
        const shown = map(options.only);
        if (shown) await stream.writeSSE({ event: String(shown.type), data: JSON.stringify(shown) });
        return;
      }
      const records = bus.subscribe(key, { ...(after ? { after } : {}), signal: controller.signal });
      // What one read of the bus returned goes to the client in one write.
      for await (const batch of perTick(records)) {
        let frames = '';
        for (const record of batch) {
          const shown = map(record.event);
          if (shown) frames += sseFrame({ id: record.id, event: String(shown.type), data: JSON.stringify(shown) });
        }
        if (frames) await stream.write(frames);
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    } finally {
      clearInterval(heartbeat);
      untrack?.();
      activeStreams.dec();
      release();
    }
  });
}
