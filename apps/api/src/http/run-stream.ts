import { isFinalRunStatus } from '@agentry/contract';
import { type Db, listRunMessages, type Run } from '@agentry/db';
import type { RunEventBus, RunEventRecord } from '@agentry/run-events';
import { processMetrics } from '@agentry/telemetry';
import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import type { Principal } from './auth.ts';
import type { RunFinishWatch } from './run-finish-watch.ts';
import { perTick, sseFrame } from './sse-batches.ts';
import { forPrincipal, runView, VISITOR_EVENT_TYPES } from './views.ts';

const HEARTBEAT_MS = 15_000;

/** Where a stream turns when its bus fails: the run's row and messages, woken when the run ends. */
export interface StreamFallback {
  db: Db;
  /** Absent: a stream whose bus fails just ends (the client resumes with `Last-Event-ID`). */
  runFinishes?: RunFinishWatch;
}

/**
 * Relays a run's events as Server-Sent Events, the events of one bus read in one write. Each event
 * carries its stream id, so a client that reconnects with `Last-Event-ID` (or `?after=`) continues
 * without gaps or duplicates; a comment line every 15 s keeps proxies from closing an idle
 * connection. Open streams are counted in the `agentry_sse_active_streams` gauge. `release` (the stream's slot, see stream-slots.ts) is called
 * when the stream ends.
 *
 * When the bus fails (unreachable at the start, or its connection drops), the stream still ends
 * with the run's outcome, from the database: once the run is final (at once, or when
 * `runFinishes` wakes it), a `run` event carries the run as `GET /v1/runs/{id}` shows it (its reply
 * and, for secret keys, tool calls), then the final `run-status` (with `error`). Neither has an
 * `id`, so the client's `Last-Event-ID` stays the last bus id it saw and a later resume is exact.
 *
 * @example
 * return streamRunEvents(c, deps.events, run, release, deps);
 */
export function streamRunEvents(
  c: Context,
  bus: RunEventBus,
  run: Run,
  release: () => void = () => {},
  fallback?: StreamFallback,
): Response {
  const after = c.req.header('last-event-id') ?? c.req.query('after');
  const principal = c.get('principal') as Principal | undefined;
  const visitor = principal?.kind === 'publishable';
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
      let busFailed = false;
      try {
        const expired = isFinalRunStatus(run.status) && !(await bus.has(run.id));
        if (!expired) {
          const records = bus.subscribe(run.id, {
            ...(after ? { after } : {}),
            signal: controller.signal,
            endWhenUnavailable: fallback?.runFinishes !== undefined,
          });
          sawFinal = await relay(stream, records, visitor);
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        if (!fallback?.runFinishes) throw error;
        busFailed = true;
      }
      if (busFailed && fallback?.runFinishes) {
        const ended = isFinalRunStatus(run.status) ? run : await fallback.runFinishes.wait(run.id, controller.signal);
        if (ended) await writeOutcome(stream, fallback.db, ended, principal);
        return;
      }
      // A run whose events expired from the bus still tells the client how it ended.
      if (!sawFinal && !controller.signal.aborted && isFinalRunStatus(run.status)) {
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

/**
 * Writes a run's records to the client, what one bus read returned in one write; whether the last
 * one written was final. Visitors' ids still advance over filtered events, so resuming stays exact.
 */
async function relay(stream: SSEStreamingApi, records: AsyncIterable<RunEventRecord>, visitor: boolean) {
  let sawFinal = false;
  for await (const batch of perTick(records)) {
    let frames = '';
    for (const record of batch) {
      if (visitor && !VISITOR_EVENT_TYPES.has(record.event.type)) continue;
      frames += sseFrame({
        id: record.id,
        event: record.event.type,
        data: record.json ?? JSON.stringify(record.event),
      });
      sawFinal = record.event.final === true;
    }
    if (frames) await stream.write(frames);
  }
  return sawFinal;
}

/** The finished run from the database: its view (as `GET /v1/runs/{id}`), then its final status. */
async function writeOutcome(stream: SSEStreamingApi, db: Db, run: Run, principal: Principal | undefined) {
  const messages = await listRunMessages(db, run.tenantId, run.id);
  const view = runView(run, messages);
  await stream.writeSSE({
    event: 'run',
    data: JSON.stringify(principal ? forPrincipal(principal, view) : view),
  });
  const error = run.error ? { error: { code: run.error.code, message: run.error.message } } : {};
  await stream.writeSSE({
    event: 'run-status',
    data: JSON.stringify({ type: 'run-status', status: run.status, ...error, final: true }),
  });
}
