import { hashEmbedding } from '@agentry/provider-demo';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm } from './server.ts';
import type { FakeLlmServer } from './types.ts';

let fake: FakeLlmServer;
let client: OpenAI;

beforeAll(async () => {
  fake = await startFakeLlm();
  client = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: 'fake', maxRetries: 0 });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
};

describe('fake LLM, OpenAI embeddings', () => {
  it('answers float vectors of the requested dimensions in the wire shape', async () => {
    const texts = ['How do refunds work?', 'refund policy', 'store opening hours'];
    const result = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: texts,
      dimensions: 64,
      encoding_format: 'float',
    });
    expect(result).toMatchObject({ object: 'list', model: 'text-embedding-3-small' });
    expect(result.usage.total_tokens).toBeGreaterThan(0);
    expect(result.data.map((d) => [d.object, d.index, d.embedding.length])).toEqual([
      ['embedding', 0, 64],
      ['embedding', 1, 64],
      ['embedding', 2, 64],
    ]);
    const [refunds, policy, hours] = result.data.map((d) => d.embedding);
    expect(refunds).toEqual(Array.from(hashEmbedding(texts[0]!, 64)));
    // Lexical overlap is similarity: "refunds" folds to "refund".
    expect(cosine(refunds!, policy!)).toBeGreaterThan(cosine(refunds!, hours!));
    expect(fake.embeddingRequests).toHaveLength(1);
    expect(fake.embeddingRequests[0]?.body.input).toEqual(texts);
    expect(fake.requests).toHaveLength(0);
  });

  it('defaults to 256 dimensions and decodes for the SDK’s default base64 encoding', async () => {
    const result = await client.embeddings.create({ model: 'bge-m3', input: '退货政策' });
    expect(fake.embeddingRequests[0]?.body.encoding_format).toBe('base64');
    const vector = result.data[0]!.embedding as unknown as ArrayLike<number>;
    expect(vector.length).toBe(256);
    expect(Array.from(vector)).toEqual(Array.from(hashEmbedding('退货政策', 256)));
  });

  it('plays scripted failures from its own queue, with retry-after, then answers again', async () => {
    fake.enqueue({ type: 'reply', text: 'a chat turn the embedding calls must not consume' });
    fake.enqueueEmbeddings(
      { type: 'error', status: 429, retryAfterSeconds: 7 },
      { type: 'error', status: 401, message: 'bad key' },
      { type: 'error', status: 500 },
    );
    const tooMany = await client.embeddings.create({ model: 'm', input: 'x' }).catch((e: unknown) => e);
    expect(tooMany).toBeInstanceOf(OpenAI.RateLimitError);
    expect((tooMany as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('7');
    await expect(client.embeddings.create({ model: 'm', input: 'x' })).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
    await expect(client.embeddings.create({ model: 'm', input: 'x' })).rejects.toBeInstanceOf(
      OpenAI.InternalServerError,
    );
    const ok = await client.embeddings.create({ model: 'm', input: 'x', encoding_format: 'float' });
    expect(ok.data).toHaveLength(1);
    expect(fake.embeddingRequests).toHaveLength(4);
    expect(fake.pending()).toBe(1);
  });

  it('refuses malformed bodies with a 400 the SDK does not retry', async () => {
    const retrying = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: 'fake' });
    for (const body of [
      { input: [] },
      { input: [1, 2] },
      { input: 'x', dimensions: 0 },
      { input: 'x', encoding_format: 'hex' },
      { input: ['a', ''] },
    ]) {
      await expect(retrying.embeddings.create({ model: 'm', ...(body as { input: string }) })).rejects.toBeInstanceOf(
        OpenAI.BadRequestError,
      );
    }
    expect(fake.embeddingRequests).toHaveLength(5);
  });

  it('clears the embeddings queue and log on reset', async () => {
    fake.enqueueEmbeddings({ type: 'error', status: 500 });
    await client.embeddings.create({ model: 'm', input: 'x' }).catch(() => {});
    fake.enqueueEmbeddings({ type: 'error', status: 500 });
    fake.reset();
    expect(fake.embeddingRequests).toHaveLength(0);
    await expect(client.embeddings.create({ model: 'm', input: 'x' })).resolves.toMatchObject({ object: 'list' });
  });
});
