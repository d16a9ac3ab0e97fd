import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { observeStream } from './observe-stream.ts';

/** A source that records how it was driven. */
function source(items: number[], failAt?: number) {
  const log = { returned: false, pulled: 0 };
  const iterable: AsyncIterable<number> = {
    [Symbol.asyncIterator]() {
      let i = 0;
      return {
        async next() {
          log.pulled++;
          if (i === failAt) throw new Error(`source failed at ${i}`);
          return i < items.length ? { done: false, value: items[i++]! } : { done: true, value: undefined };
        },
        async return() {
          log.returned = true;
          return { done: true, value: undefined };
        },
      };
    },
  };
  return { iterable, log };
}

describe('observeStream', () => {
  it('passes every item through unchanged and tells the observer of each, then the end, once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer(), { maxLength: 50 }), async (items) => {
        const seen: string[] = [];
        const { iterable } = source(items);
        const out: number[] = [];
        for await (const n of observeStream(iterable, {
          start: () => seen.push('start'),
          item: (n) => seen.push(`item ${n}`),
          error: () => seen.push('error'),
          end: () => seen.push('end'),
        }))
          out.push(n);
        expect(out).toEqual(items);
        expect(seen).toEqual(['start', ...items.map((n) => `item ${n}`), 'end']);
      }),
    );
  });

  it('reports a source failure, then the end, and rethrows it to the consumer', async () => {
    const seen: string[] = [];
    const { iterable } = source([1, 2, 3], 2);
    const out: number[] = [];
    await expect(async () => {
      for await (const n of observeStream(iterable, {
        error: (e) => seen.push(`error ${(e as Error).message}`),
        end: () => seen.push('end'),
      }))
        out.push(n);
    }).rejects.toThrow('source failed at 2');
    expect(out).toEqual([1, 2]);
    expect(seen).toEqual(['error source failed at 2', 'end']);
  });

  it('closes the source and ends once when the consumer leaves early', async () => {
    let ends = 0;
    const { iterable, log } = source([1, 2, 3, 4]);
    for await (const n of observeStream(iterable, { end: () => ends++ })) if (n === 2) break;
    expect(log.returned).toBe(true);
    expect(log.pulled).toBe(2);
    expect(ends).toBe(1);
  });

  it('fails the iteration and closes the source when the observer throws', async () => {
    const { iterable, log } = source([1, 2, 3]);
    const out: number[] = [];
    await expect(async () => {
      for await (const n of observeStream(iterable, {
        item: (n) => {
          if (n === 2) throw new Error('observer failed');
        },
      }))
        out.push(n);
    }).rejects.toThrow('observer failed');
    expect(out).toEqual([1]);
    expect(log.returned).toBe(true);
  });

  it('does not start the source until the consumer iterates', () => {
    let started = 0;
    const { log } = source([1]);
    observeStream(source([1]).iterable, { start: () => started++ });
    expect(started).toBe(0);
    expect(log.pulled).toBe(0);
  });
});
