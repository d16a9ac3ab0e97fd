import { describe, expect, it } from 'vitest';
import { selectFields, shapeResponse } from './shape-response.ts';

describe('shapeResponse', () => {
  it.each([
    ['keeps listed top-level fields', { a: 1, b: 2, c: 3 }, ['a', 'c'], { a: 1, c: 3 }],
    ['keeps nested dot paths', { o: { s: 'x', t: 1 }, z: 0 }, ['o.s'], { o: { s: 'x' } }],
    ['a whole field beats deeper ones', { o: { s: 'x', t: 1 } }, ['o', 'o.s'], { o: { s: 'x', t: 1 } }],
    [
      'maps over arrays',
      [
        { id: 1, x: 1 },
        { id: 2, x: 2 },
      ],
      ['id'],
      [{ id: 1 }, { id: 2 }],
    ],
    ['maps over nested arrays', { items: [{ id: 1, x: 1 }] }, ['items.id'], { items: [{ id: 1 }] }],
    ['ignores missing fields', { a: 1 }, ['b', 'a.c'], { a: 1 }],
  ])('%s', (_name, value, fields, expected) => {
    expect(JSON.parse(JSON.stringify(selectFields(value, fields)))).toEqual(expected);
  });

  it('parses JSON by content type or shape and leaves text as text', () => {
    expect(shapeResponse('{"a":1}', { maxBytes: 100 })).toEqual({ a: 1 });
    expect(shapeResponse('[1]', { maxBytes: 100, contentType: 'text/plain' })).toEqual([1]);
    expect(shapeResponse('hello', { maxBytes: 100, contentType: 'application/json' })).toBe('hello');
  });

  it('cuts oversized output and says so', () => {
    const out = shapeResponse(JSON.stringify({ a: 'x'.repeat(500) }), { maxBytes: 50 });
    expect(typeof out).toBe('string');
    expect(out).toMatch(/^\{"a":"x+\n\[truncated: the response was longer than 50 bytes\]$/);
  });

  it('never splits a multi-byte character', () => {
    const out = shapeResponse('é'.repeat(100), { maxBytes: 11 }) as string;
    expect(out.startsWith('ééééé\n')).toBe(true);
  });

  it('keeps __proto__ keys as data', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
    const shaped = selectFields(value, ['__proto__', 'a']) as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(shaped)).toEqual(['__proto__', 'a']);
  });
});
