import { createParser } from 'eventsource-parser';

/** One Server-Sent Event as the suite received it. */
export interface StreamEvent {
  id: string | undefined;
  event: string | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: event payloads read ad hoc by the checks
  data: any;
}

export type StreamEnd = 'final' | 'closed' | 'stopped' | 'error';

/**
 * Reads an SSE response (eventsource-parser) until an event with `final: true`, the end of the
 * body, an error, or `stopAfter` events (then it disconnects, as a client that goes away does).
 *
 * @example
 * const { events, end } = await readEvents(res, { stopAfter: 3 });
 */
export async function readEvents(
  res: Response,
  options: { stopAfter?: number; onEvent?: (event: StreamEvent) => void } = {},
): Promise<{ events: StreamEvent[]; end: StreamEnd; error?: string }> {
  const events: StreamEvent[] = [];
  let end: StreamEnd | undefined;
  const parser = createParser({
    onEvent: (e) => {
      if (end) return;
      let data: unknown = e.data;
      try {
        data = JSON.parse(e.data);
      } catch {}
      const event = { id: e.id, event: e.event, data };
      events.push(event);
      options.onEvent?.(event);
      if ((data as { final?: boolean } | undefined)?.final === true) end = 'final';
      else if (options.stopAfter !== undefined && events.length >= options.stopAfter) end = 'stopped';
    },
  });
  const reader = res.body?.getReader();
  if (!reader) return { events, end: 'closed' };
  const decoder = new TextDecoder();
  try {
    while (!end) {
      const { done, value } = await reader.read();
      if (done) {
        end = 'closed';
        break;
      }
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } catch (error) {
    return { events, end: 'error', error: String(error) };
  } finally {
    await reader.cancel().catch(() => {});
  }
  return { events, end };
}
