/** One Server-Sent Event: `id`, `event` (default `message`) and the joined `data` lines. */
export interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

/**
 * An incremental `text/event-stream` parser (WHATWG rules: LF, CR or CRLF line ends, `:` comments,
 * multi-line `data`, an event dispatched on a blank line). Feed it chunks as they arrive; chunks may
 * split lines anywhere.
 *
 * @example
 * const parser = createSseParser();
 * parser.feed('id: 1\nevent: text-delta\ndata: {"delta":"Hi"}\n\n'); // [{ id: '1', event: 'text-delta', data: '{"delta":"Hi"}' }]
 */
export function createSseParser(): { feed(chunk: string): SseMessage[] } {
  let buffer = '';
  let data: string[] = [];
  let event = '';
  let id: string | undefined;
  return {
    feed(chunk) {
      buffer += chunk;
      const out: SseMessage[] = [];
      for (;;) {
        const match = /\r\n|\r|\n/.exec(buffer);
        // A lone CR at the end may be the first half of CRLF: wait for more.
        if (!match || (match[0] === '\r' && match.index === buffer.length - 1)) break;
        const line = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        if (line === '') {
          if (data.length > 0)
            out.push({ ...(id !== undefined ? { id } : {}), event: event || 'message', data: data.join('\n') });
          data = [];
          event = '';
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') data.push(value);
        else if (field === 'event') event = value;
        else if (field === 'id' && !value.includes('\0')) id = value;
      }
      return out;
    },
  };
}
