import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { sleep, writable } from './http-io.ts';
import { formatSse, type SseEvent } from './sse-event.ts';

export interface SseWriteOptions {
  /** Extra response headers (request id…). */
  headers: Record<string, string>;
  /** Pause between two events. */
  chunkDelayMs?: number;
  /** Fires when the client has gone away: stop writing. */
  signal: AbortSignal;
}

/** Waits for the socket to drain so a slow reader never makes the fake buffer without bound. */
async function writeEvent(res: ServerResponse, event: SseEvent, signal: AbortSignal): Promise<void> {
  if (res.write(formatSse(event))) return;
  await Promise.race([once(res, 'drain'), once(signal, 'abort')]);
}

/**
 * Answers 200 with `text/event-stream` and writes the events, pausing between them; stops quietly when
 * the client aborts.
 *
 * @example
 * await writeSse(res, [{ data: { hello: 1 } }, { data: '[DONE]' }], { headers: {}, signal });
 */
export async function writeSse(res: ServerResponse, events: SseEvent[], options: SseWriteOptions): Promise<void> {
  if (!writable(res)) return;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...options.headers,
  });
  // Headers go out before the first pause so clients see the stream open even when chunks are slow.
  res.flushHeaders();
  for (const [index, event] of events.entries()) {
    if (index > 0) await sleep(options.chunkDelayMs, options.signal);
    if (options.signal.aborted || !writable(res)) return;
    await writeEvent(res, event, options.signal);
  }
  if (writable(res)) res.end();
}
