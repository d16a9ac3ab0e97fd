import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lexicalFeatures, queryFeatures } from './lexical-features.ts';

describe('queryFeatures', () => {
  it('drops the common words of English and Chinese, keeps the ones that matter', () => {
    expect(queryFeatures('How do I reset my password?')).toEqual(['reset', 'password']);
    expect(queryFeatures("It isn't on my porch, what happens now?")).toEqual(['porch', 'happens', 'happen']);
    // Chinese: single characters that are common words go; bigrams stay.
    const zh = queryFeatures('我的订单');
    expect(zh).not.toContain('我');
    expect(zh).toEqual(expect.arrayContaining(['我的', '订单', '订', '单']));
  });

  it('keeps every feature of a query made only of common words', () => {
    expect(queryFeatures('Who are you?')).toEqual(['who', 'are', 'you']);
    expect(queryFeatures('?!')).toEqual([]);
  });

  it('any text: a subset of its lexical features, empty only when those are', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        const all = lexicalFeatures(text);
        const kept = queryFeatures(text);
        expect(kept.every((feature) => all.includes(feature))).toBe(true);
        expect(kept.length === 0).toBe(all.length === 0);
      }),
    );
  });
});
