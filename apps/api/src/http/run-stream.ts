import type { Run } from '@agentry/db';
import type { RunEventBus } from '@agentry/run-events';
import { processMetrics } from '@agentry/telemetry';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Principal } from './auth.ts';
import { VISITOR_EVENT_TYPES } from './views.ts';

const HEARTBEAT_MS = 15_000;
const FINAL_STATUSES = new Set(['completed', 'failed', 'cancelled', 'timed_out']);

/**
 * Relays a run's events as Server-Sent Events. Each event carries its stream id, so a client that
 * reconnects with `Last-Event-ID` (or `?after=`) continues without gaps or duplicates; a comment
 * line every 15 s keeps proxies from closing an idle connection. Open streams are counted in the
 * `agentry_sse_active_streams` gauge. `release` (the stream's slot, see stream-slots.ts) is called
 * when the stream ends.
 */
export function streamRunEvents(c: Context, bus: RunEventBus, run: Run, release: () => void = () => {}): Response {
  const after = c.req.header('last-event-id') ?? c.req.query('after');
  const visitor = (c.get('principal') as Principal | undefined)?.kind === 'publishable';
  return streamSSE(c, async (stream) => {
    const activeStreams = processMetrics().sseActiveStreams;
    activeStreams.inc();
    const controller = new AbortController();
    stream.onAbort(() => controller.abort());
    const heartbeat = setInterval(() => {
      void stream.write(': ping\n\n');
    }, HEARTBEAT_MS);
    try {
      let sawFinal = false;
      const expired = FINAL_STATUSES.has(run.status) && !(await bus.has(run.id));
      if (!expired)
        for await (const record of bus.subscribe(run.id, { ...(after ? { after } : {}), signal: controller.signal })) {
          // Visitors' ids still advance over filtered events, so resuming stays exact.
          if (visitor && !VISITOR_EVENT_TYPES.has(record.event.type)) continue;
          await stream.writeSSE({
            id: record.id,
            event: record.event.type,
            data: record.json ?? JSON.stringify(record.event),
          });
          sawFinal = record.event.final === true;
        }
      // A run whose events expired from the bus still tells the client how it ended.
      if (!sawFinal && !controller.signal.aborted && FINAL_STATUSES.has(run.status)) {
        await stream.writeSSE({
          event: 'run-status',
          data: JSON.stringify({ type: 'run-status', status: run.status, final: true }),
        });
      }
    } finally {
      clearInterval(heartbeat);
      activeStreams.dec();
      release();
    }
  });
}
