import { describe, expect, it } from 'vitest';
import { parseEvent, reconnectDelay } from './live-stream.ts';

describe('parseEvent', () => {
  it('types the data by its own type, else by the SSE event name', () => {
    expect(parseEvent('mode', '{"type":"visitor-message","a":1}')).toEqual({ type: 'visitor-message', a: 1 });
    expect(parseEvent('note', '{"a":1}')).toEqual({ type: 'note', a: 1 });
  });
  it('drops data that is not a JSON object', () => {
    expect(parseEvent('x', 'not json')).toBeUndefined();
    expect(parseEvent('x', '[1]')).toBeUndefined();
    expect(parseEvent('x', 'null')).toBeUndefined();
  });
});

describe('reconnectDelay', () => {
  it('doubles from half a second up to ten', () => {
    expect([1, 2, 3, 4, 5, 6, 10].map(reconnectDelay)).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
  });
});
