import { describe, expect, it } from 'vitest';
import { createSseParser } from './sse-parser.ts';

describe('SSE parser', () => {
  it('parses events split across chunks, with ids, comments and multi-line data', () => {
    const parser = createSseParser();
    const text =
      ': ping\n\nid: 7\nevent: text-delta\ndata: {"delta":\ndata: "Hi"}\n\nid: 8\r\nevent: run-status\r\ndata: {}\r\n\r\n';
    const events = [...text].flatMap((ch) => parser.feed(ch));
    expect(events).toEqual([
      { id: '7', event: 'text-delta', data: '{"delta":\n"Hi"}' },
      { id: '8', event: 'run-status', data: '{}' },
    ]);
  });

  it('keeps the last id, defaults the event name, and waits for the blank line', () => {
    const parser = createSseParser();
    expect(parser.feed('id: 1\ndata: a\n\ndata: b\n')).toEqual([{ id: '1', event: 'message', data: 'a' }]);
    expect(parser.feed('\n')).toEqual([{ id: '1', event: 'message', data: 'b' }]);
    expect(parser.feed('event: x\n\n')).toEqual([]);
  });
});
