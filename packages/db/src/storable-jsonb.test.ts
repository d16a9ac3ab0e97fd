import { describe, expect, it } from 'vitest';
import { withoutLoneSurrogates, withoutNul } from './storable-jsonb.ts';

describe('withoutNul', () => {
  it('replaces NUL escapes in strings and keys with U+FFFD', () => {
    const json = withoutNul(JSON.stringify({ 'k\u0000': ['a\u0000b', '\u0000\u0000'] }));
    expect(JSON.parse(json)).toEqual({ 'k\ufffd': ['a\ufffdb', '\ufffd\ufffd'] });
  });

  it('leaves an escaped backslash followed by the text u0000 alone', () => {
    for (const value of ['\\u0000', '\\\\u0000', 'x\\\u0000', '\\\\\u0000']) {
      const json = withoutNul(JSON.stringify({ value }));
      expect(JSON.parse(json).value).toBe(value.replaceAll('\u0000', '\ufffd'));
    }
  });

  it('returns JSON without NUL as it is', () => {
    const json = JSON.stringify({ a: 'plain', b: [1, 2] });
    expect(withoutNul(json)).toBe(json);
  });
});

describe('withoutLoneSurrogates', () => {
  it('replaces lone surrogates in strings and keys with U+FFFD, keeping pairs and escaped text', () => {
    const json = withoutLoneSurrogates(
      JSON.stringify({ 'k\udc00': ['a\ud800b', '\udfff\ud800', '\ud83d\ude00', '\\ud800'] }),
    );
    expect(JSON.parse(json)).toEqual({ 'k\ufffd': ['a\ufffdb', '\ufffd\ufffd', '\ud83d\ude00', '\\ud800'] });
  });

  it('returns JSON without lone surrogates as it is', () => {
    const json = JSON.stringify({ a: 'plain \ud83d\ude00', b: '\\ud800' });
    expect(withoutLoneSurrogates(json)).toBe(json);
  });
});
