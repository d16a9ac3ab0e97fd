import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateTokens, splitBatches } from './openai-embedding-batches.ts';

describe('splitBatches', () => {
  it('keeps every text once, in order, each batch within both limits (or a lone oversized text)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 40, unit: 'grapheme' }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 80 }),
        (texts, maxInputs, maxTokens) => {
          const batches = splitBatches(texts, { maxInputs, maxTokens });
          expect(batches.flatMap((b) => b.texts)).toEqual(texts);
          let next = 0;
          for (const batch of batches) {
            expect(batch.start).toBe(next);
            next += batch.texts.length;
            expect(batch.texts.length).toBeGreaterThan(0);
            expect(batch.texts.length).toBeLessThanOrEqual(maxInputs);
            const tokens = batch.texts.reduce((sum, t) => sum + estimateTokens(t), 0);
            if (batch.texts.length > 1) expect(tokens).toBeLessThanOrEqual(maxTokens);
          }
        },
      ),
    );
  });

  it('counts CJK characters dearer than ASCII', () => {
    expect(estimateTokens('refund policy')).toBe(6);
    expect(estimateTokens('退货政策')).toBe(9);
  });
});
