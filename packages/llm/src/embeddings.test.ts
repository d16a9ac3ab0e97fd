import { describe, expect, it } from 'vitest';
import { type EmbeddingModel, normalizeVector, resolveEmbeddingDimensions } from './embeddings.ts';

/** A model of unknown size until it answers, counting its calls. */
function learning(size: number, withResolve: boolean, known = 0): EmbeddingModel & { calls: number } {
  const model = {
    provider: 'test',
    modelId: 'm',
    dimensions: known,
    maxBatch: 8,
    calls: 0,
    async embed(texts: readonly string[]) {
      model.calls++;
      model.dimensions = size;
      return texts.map(() => normalizeVector(new Array(size).fill(1)));
    },
    ...(withResolve ? { resolveDimensions: async () => (model.dimensions ? model.dimensions : 7) } : {}),
  };
  return model;
}

describe('resolveEmbeddingDimensions', () => {
  it('answers a known size without a call, asks the model’s own probe, or embeds one word', async () => {
    const known = learning(3, false, 3);
    expect(await resolveEmbeddingDimensions(known)).toBe(3);
    expect(known.calls).toBe(0);
    expect(await resolveEmbeddingDimensions(learning(5, true))).toBe(7);
    const plain = learning(5, false);
    expect(await resolveEmbeddingDimensions(plain)).toBe(5);
    expect(plain.calls).toBe(1);
  });
});

describe('normalizeVector', () => {
  it('scales to unit length and keeps a zero vector zero', () => {
    expect(Array.from(normalizeVector([3, 4]))).toEqual([expect.closeTo(0.6), expect.closeTo(0.8)]);
    expect(Array.from(normalizeVector([0, 0]))).toEqual([0, 0]);
  });
});
