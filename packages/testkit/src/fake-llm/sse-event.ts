/** One server-sent event: an optional `event:` name and its data (objects are sent as JSON, strings verbatim). */
export interface SseEvent {
  event?: string;
  data: unknown;
}

/**
 * The wire text of one event, ending with the blank line that terminates it.
 *
 * @example
 * formatSse({ event: 'ping', data: { type: 'ping' } }); // 'event: ping\ndata: {"type":"ping"}\n\n'
 */
export function formatSse(event: SseEvent): string {
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
  return `${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${data}\n\n`;
}
