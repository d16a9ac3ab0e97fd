import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { describe, expect, it } from 'vitest';
import { perTick, type SseMessage, sseFrame } from './sse-batches.ts';

/** What Hono's own `writeSSE` writes for these messages. */
async function honoFrames(messages: SseMessage[]): Promise<string> {
  const app = new Hono().get('/', (c) =>
    streamSSE(c, async (stream) => {
      for (const message of messages) await stream.writeSSE(message);
    }),
  );
  return (await app.request('/')).text();
}

/** Yields `groups` one group per turn of the event loop (each group's items at once). */
async function* inTurns<T>(groups: T[][], failAtEnd?: Error): AsyncGenerator<T> {
  for (const group of groups) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    for (const item of group) yield item;
  }
  if (failAtEnd) throw failAtEnd;
}

describe('SSE frames', () => {
  it('are what Hono’s writeSSE writes, with and without an id or an event type', async () => {
    const messages: SseMessage[] = [
      { id: '1712-0', event: 'text-delta', data: '{"type":"text-delta","delta":"Hi"}' },
      { event: 'run-status', data: '{"final":true}' },
      { data: '{"object":"chat.completion.chunk"}' },
      { data: '[DONE]' },
      { id: '7', event: 'note', data: 'two\nlines' },
    ];
    expect(messages.map(sseFrame).join('')).toBe(await honoFrames(messages));
  });

  it('refuse an event type or id with a line break (it would forge fields)', () => {
    expect(() => sseFrame({ event: 'a\nid: 9', data: '{}' })).toThrow(/line break/);
    expect(() => sseFrame({ id: '1\r', event: 'a', data: '{}' })).toThrow(/line break/);
  });
});

describe('perTick', () => {
  it('batches what a source yields within one turn of the event loop, and nothing across turns', async () => {
    const batches: number[][] = [];
    for await (const batch of perTick(inTurns([[1, 2, 3], [4], [5, 6]]))) batches.push(batch);
    expect(batches).toEqual([[1, 2, 3], [4], [5, 6]]);
  });

  it('hands over the items before a failure, then the failure', async () => {
    const batches: number[][] = [];
    const failure = new Error('bus gone');
    await expect(async () => {
      for await (const batch of perTick(inTurns([[1], [2, 3]], failure))) batches.push(batch);
    }).rejects.toBe(failure);
    expect(batches).toEqual([[1], [2, 3]]);
  });

  it('ends its source when the consumer stops early', async () => {
    let ended = false;
    async function* source() {
      try {
        yield* inTurns([[1, 2], [3]]);
      } finally {
        ended = true;
      }
    }
    for await (const batch of perTick(source())) {
      expect(batch).toEqual([1, 2]);
      break;
    }
    // The pull after the first batch is in flight; the source ends once it settles.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ended).toBe(true);
  });
});
