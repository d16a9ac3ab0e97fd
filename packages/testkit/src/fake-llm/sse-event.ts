/**
 * One server-sent event: an optional `event:` name and its data (objects are sent as JSON, strings
 * verbatim). A function is called when the event is written and its result sent (emission timestamps).
 */
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
  const value: unknown = typeof event.data === 'function' ? event.data() : event.data;
  const data = typeof value === 'string' ? value : JSON.stringify(value);
  return `${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${data}\n\n`;
}
