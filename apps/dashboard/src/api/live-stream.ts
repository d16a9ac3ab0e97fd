import { ProblemError } from '@agentry/contract';
import { apiRequest, failure } from './client.ts';
import { createSseParser } from './sse-parser.ts';

/** One event of a live stream (the inbox's, a conversation's): its `type` and the rest of its data. */
export type LiveEvent = { type: string; [key: string]: unknown };

export interface LiveStreamHandlers {
  /** Each event, in order, once (a reconnect resumes after the last id seen). */
  onEvent(event: LiveEvent): void;
  /** The stream is open (first time, or again after a drop): a caller may re-read what it shows. */
  onOpen?(resumed: boolean): void;
  /** The connection dropped; it reconnects by itself. */
  onDrop?(): void;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** The reconnect delay after `attempt` failures in a row: 0.5 s doubling, at most 10 s. */
export function reconnectDelay(attempt: number): number {
  return Math.min(500 * 2 ** Math.max(0, attempt - 1), 10_000);
}

/**
 * Follows a long-lived SSE route of the API (`GET /v1/inbox/events`, `GET /v1/conversations/{id}/events`)
 * until `signal` aborts: a dropped connection is reopened with backoff and `?after=<last id>`, so no
 * event is lost or repeated. A 4xx other than 429 ends it (reconnecting would not help).
 * The server blocks on its bus, so an idle stream costs nothing here: no polling.
 *
 * @example
 * const stop = new AbortController();
 * void followLiveStream('/v1/inbox/events', { onEvent: (e) => console.log(e.type) }, stop.signal);
 */
export async function followLiveStream(path: string, handlers: LiveStreamHandlers, signal: AbortSignal): Promise<void> {
  let lastId: string | undefined;
  let attempt = 0;
  let opened = false;
  while (!signal.aborted) {
    try {
      const url = lastId ? `${path}${path.includes('?') ? '&' : '?'}after=${encodeURIComponent(lastId)}` : path;
      const res = await apiRequest('GET', url, { accept: 'text/event-stream', signal });
      if (!res.ok) throw await failure(res, path);
      handlers.onOpen?.(opened);
      opened = true;
      attempt = 0;
      if (!res.body) throw ProblemError.network('no body');
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      const parser = createSseParser();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          for (const message of parser.feed(value)) {
            if (message.id) lastId = message.id;
            const event = parseEvent(message.event, message.data);
            if (event) handlers.onEvent(event);
          }
        }
      } finally {
        reader.releaseLock();
      }
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ProblemError && error.status >= 400 && error.status < 500 && error.status !== 429)
        throw error;
    }
    if (signal.aborted) return;
    handlers.onDrop?.();
    attempt++;
    await sleep(reconnectDelay(attempt), signal);
  }
}

/** The event's JSON data, typed by its `type` (or the SSE event name); undefined when it is not JSON. */
export function parseEvent(name: string, data: string): LiveEvent | undefined {
  try {
    const parsed: unknown = JSON.parse(data);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    const event = parsed as Record<string, unknown>;
    return { ...event, type: typeof event.type === 'string' ? event.type : name };
  } catch {
    return undefined;
  }
}
