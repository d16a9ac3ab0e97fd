import { type FakeLlmServer, startFakeLlm } from '@agentry/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAIEmbeddingModel } from './openai-embedding-model.ts';

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlm();
});
afterAll(async () => {
  await server?.close();
});
beforeEach(() => server.reset());

const norm = (v: Float32Array) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const model = (extra: Partial<Parameters<typeof createOpenAIEmbeddingModel>[0]> = {}) =>
  createOpenAIEmbeddingModel({
    apiKey: 'sk-test',
    baseURL: server.openaiBaseUrl,
    model: 'text-embedding-3-small',
    dimensions: 64,
    maxRetries: 0,
    ...extra,
  });

describe('OpenAI embeddings adapter', () => {
  it('asks for float vectors of the given dimensions and returns them unit length, in order', async () => {
    const embedder = model();
    expect(embedder).toMatchObject({ provider: 'openai', modelId: 'text-embedding-3-small', dimensions: 64 });
    const texts = ['How do refunds work?', 'refund policy', 'store opening hours'];
    const vectors = await embedder.embed(texts);
    expect(vectors.map((v) => v.length)).toEqual([64, 64, 64]);
    for (const v of vectors) expect(norm(v)).toBeCloseTo(1, 5);
    expect(dot(vectors[0]!, vectors[1]!)).toBeGreaterThan(dot(vectors[0]!, vectors[2]!));
    const body = server.embeddingRequests[0]?.body;
    expect(body).toEqual({ model: 'text-embedding-3-small', input: texts, encoding_format: 'float', dimensions: 64 });
    expect(server.embeddingRequests[0]?.headers.authorization).toBe('Bearer sk-test');
  });

  it('orders vectors by index whatever order the server lists them in', async () => {
    const reversing: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const json = (await response.json()) as { data: unknown[] };
      json.data.reverse();
      return new Response(JSON.stringify(json), { status: response.status, headers: response.headers });
    };
    const texts = ['alpha', 'beta', 'gamma'];
    const [direct, reversed] = await Promise.all([model().embed(texts), model({ fetch: reversing }).embed(texts)]);
    expect(reversed).toEqual(direct);
  });

  it('reads base64 vectors from servers that ignore the float encoding, and refuses broken ones', async () => {
    const rewriting =
      (rewrite: (embedding: number[]) => unknown): typeof fetch =>
      async (input, init) => {
        const response = await fetch(input, init);
        const json = (await response.json()) as { data: Array<{ embedding: unknown }> };
        for (const item of json.data) item.embedding = rewrite(item.embedding as number[]);
        return new Response(JSON.stringify(json), { status: response.status, headers: response.headers });
      };
    const base64 = (v: number[]) => Buffer.from(new Float32Array(v).buffer).toString('base64');
    const [plain] = await model().embed(['alpha beta']);
    const [decoded] = await model({ fetch: rewriting(base64) }).embed(['alpha beta']);
    expect(decoded).toEqual(plain);
    for (const broken of [() => 'abc', () => [1, 'x'], () => null, (v: number[]) => v.map(() => Number.NaN)]) {
      await expect(model({ fetch: rewriting(broken) }).embed(['x'])).rejects.toMatchObject({
        code: 'model_bad_request',
      });
    }
  });

  it('splits by count and by estimated tokens, one request at a time', async () => {
    const texts = Array.from({ length: 5 }, (_, i) => `text number ${i}`);
    const vectors = await model({ maxBatch: 2 }).embed(texts);
    expect(vectors).toHaveLength(5);
    expect(server.embeddingRequests.map((r) => r.body.input.length)).toEqual([2, 2, 1]);
    server.reset();
    await model({ maxBatchTokens: 20 }).embed(['x'.repeat(30), 'y'.repeat(30), 'z'.repeat(60)]);
    expect(server.embeddingRequests.map((r) => r.body.input.length)).toEqual([1, 1, 1]);
    expect(await model().embed([])).toEqual([]);
  });

  it('learns an unknown compatible model’s dimensions once, from one tiny call', async () => {
    const bge = createOpenAIEmbeddingModel({
      apiKey: '',
      baseURL: server.openaiBaseUrl,
      model: 'bge-m3',
      provider: 'openai_compatible',
    });
    expect(bge.dimensions).toBe(0);
    expect(bge.maxBatch).toBe(32);
    expect(await bge.resolveDimensions()).toBe(256);
    expect(await bge.resolveDimensions()).toBe(256);
    expect(bge.dimensions).toBe(256);
    expect(server.embeddingRequests).toHaveLength(1);
    expect(server.embeddingRequests[0]?.body.dimensions).toBeUndefined();
    expect(server.embeddingRequests[0]?.headers.authorization).toBe('Bearer not-needed');
  });

  it('knows OpenAI’s own models’ dimensions and refuses vectors of another length', async () => {
    const small = model({ dimensions: undefined });
    expect(small.dimensions).toBe(1536);
    expect(await small.resolveDimensions()).toBe(1536);
    expect(server.embeddingRequests).toHaveLength(0);
    // The fake answers 256 numbers when no `dimensions` is sent.
    await expect(small.embed(['x'])).rejects.toMatchObject({ code: 'model_bad_request', isRetryable: false });
  });

  it('maps failures as the chat adapter does', async () => {
    server.enqueueEmbeddings({ type: 'error', status: 429, retryAfterSeconds: 7 });
    await expect(model().embed(['x'])).rejects.toMatchObject({ code: 'model_rate_limited', retryAfterMs: 7000 });
    server.enqueueEmbeddings({ type: 'error', status: 401, message: 'Incorrect API key provided: sk-test' });
    const auth = await model()
      .embed(['x'])
      .catch((e: Error) => e);
    expect(auth).toMatchObject({ code: 'model_auth_failed' });
    expect((auth as Error).message).not.toContain('sk-test');
    server.enqueueEmbeddings({ type: 'error', status: 500 });
    await expect(model().embed(['x'])).rejects.toMatchObject({ code: 'model_unavailable', isRetryable: true });
    const closed = await startFakeLlm();
    await closed.close();
    await expect(model({ baseURL: closed.openaiBaseUrl }).embed(['x'])).rejects.toMatchObject({
      code: 'model_connection_failed',
    });
  });

  it('retries with the SDK and honours the retry delay', async () => {
    server.enqueueEmbeddings({ type: 'error', status: 429, retryAfterSeconds: 0 }, { type: 'error', status: 503 });
    const vectors = await model({ maxRetries: 2 }).embed(['x']);
    expect(vectors).toHaveLength(1);
    expect(server.embeddingRequests).toHaveLength(3);
  });

  it('honours the caller’s signal', async () => {
    const before = new AbortController();
    before.abort();
    await expect(model().embed(['x'], { signal: before.signal })).rejects.toMatchObject({ code: 'aborted' });
    server.enqueueEmbeddings({ type: 'embeddings', delayMs: 5000 });
    const during = new AbortController();
    const pending = model().embed(['x'], { signal: during.signal });
    setTimeout(() => during.abort(), 50);
    const started = Date.now();
    await expect(pending).rejects.toMatchObject({ code: 'aborted' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('refuses to start for OpenAI without an API key', () => {
    expect(() => createOpenAIEmbeddingModel({ apiKey: '', model: 'text-embedding-3-small' })).toThrow(
      expect.objectContaining({ code: 'model_not_configured' }),
    );
  });
});
