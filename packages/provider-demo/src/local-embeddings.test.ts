import { describe, expect, it } from 'vitest';
import { createLocalEmbeddingModel, hashEmbedding } from './local-embeddings.ts';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe('the built-in embeddings', () => {
  it('put texts that share words closer than texts that do not, in English and Chinese', async () => {
    const model = createLocalEmbeddingModel({ dimensions: 128 });
    const [query, near, far, zhQuery, zhNear, zhFar] = await model.embed([
      'How long does a refund take?',
      'Refunds take five business days to reach your card.',
      'Our office is closed on public holidays.',
      '退款需要多长时间？',
      '退款会在五个工作日内退回您的银行卡。',
      '我们的办公室在公共假日关闭。',
    ]);
    expect(dot(query!, near!)).toBeGreaterThan(dot(query!, far!));
    expect(dot(zhQuery!, zhNear!)).toBeGreaterThan(dot(zhQuery!, zhFar!));
  });

  it('are deterministic unit vectors of the asked size', () => {
    const a = hashEmbedding('The same text', 64);
    expect(a).toEqual(hashEmbedding('The same text', 64));
    expect(a.length).toBe(64);
    expect(dot(a, a)).toBeCloseTo(1, 5);
    expect(dot(hashEmbedding('', 64), hashEmbedding('', 64))).toBe(0);
  });
});
