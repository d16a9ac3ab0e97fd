import { errors } from '@agentry/errors';
import { type EmbeddingModel, normalizeVector } from '@agentry/llm';
import type { CreateEmbeddingResponse } from 'openai/resources/embeddings';
import { LeanAbortOpenAI, linkCallSignal } from './openai-client.ts';
import { splitBatches } from './openai-embedding-batches.ts';
import { type OpenAIProviderName, toModelError } from './openai-errors.ts';

/** The vector lengths of OpenAI's own models (without a `dimensions` option). */
export const KNOWN_EMBEDDING_DIMENSIONS: Readonly<Record<string, number>> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

export interface OpenAIEmbeddingModelOptions {
  /** May be empty for local compatible servers (Ollama, vLLM, TEI) that need no key. */
  apiKey: string;
  /** For OpenAI-compatible servers, e.g. `http://localhost:11434/v1`. */
  baseURL?: string;
  model: string;
  /** `openai` (default) or `openai_compatible`. */
  provider?: OpenAIProviderName;
  /**
   * Asks the model for shorter vectors (`text-embedding-3-*` and some compatible servers) and
   * makes the length known up front. Without it the length comes from `KNOWN_EMBEDDING_DIMENSIONS`
   * or, for other models, from the first answer (`resolveDimensions()`).
   */
  dimensions?: number;
  /** Texts per request. Default 256 for OpenAI, 32 for compatible servers (TEI's default cap). */
  maxBatch?: number;
  /** Estimated tokens per request (`estimateTokens`). Default 150,000 (OpenAI allows 300,000). */
  maxBatchTokens?: number;
  /** Retries done by the SDK (backoff with jitter, honours Retry-After). Default 2. */
  maxRetries?: number;
  /** Per-attempt timeout. Default 60 s: an embeddings call is short. */
  timeoutMs?: number;
  defaultHeaders?: Record<string, string>;
  fetch?: typeof globalThis.fetch;
}

/** An `EmbeddingModel` that can learn its vector length from the provider. */
export interface OpenAIEmbeddingModel extends EmbeddingModel {
  resolveDimensions(options?: { signal?: AbortSignal }): Promise<number>;
}

/**
 * An `EmbeddingModel` backed by `POST /embeddings` of OpenAI or any compatible server, through the
 * official SDK (retries with Retry-After, timeouts, errors mapped as the chat adapter maps them).
 * Texts are sent in batches by count and estimated tokens, one request at a time; vectors come
 * back in input order (by `index`) and at unit length. `dimensions` is `0` for an unknown
 * compatible model until its first answer or `resolveDimensions()`, which embeds one word once.
 *
 * @example
 * const model = createOpenAIEmbeddingModel({ apiKey: 'sk-…', model: 'text-embedding-3-small' });
 * const [query] = await model.embed(['How do I reset my password?']); // 1536 numbers, unit length
 * const bge = createOpenAIEmbeddingModel({ apiKey: '', baseURL: 'http://localhost:8080/v1', model: 'bge-m3', provider: 'openai_compatible' });
 * await bge.resolveDimensions(); // 1024, learned from the server
 */
export function createOpenAIEmbeddingModel(options: OpenAIEmbeddingModelOptions): OpenAIEmbeddingModel {
  const provider = options.provider ?? 'openai';
  if (provider === 'openai' && !options.apiKey) throw errors.modelNotConfigured('openai');
  const client = new LeanAbortOpenAI({
    apiKey: options.apiKey || 'not-needed',
    baseURL: options.baseURL,
    maxRetries: options.maxRetries ?? 2,
    timeout: options.timeoutMs ?? 60_000,
    defaultHeaders: options.defaultHeaders,
    fetch: options.fetch,
  });
  const limits = {
    maxInputs: options.maxBatch ?? (provider === 'openai' ? 256 : 32),
    maxTokens: options.maxBatchTokens ?? 150_000,
  };
  let dimensions = options.dimensions ?? KNOWN_EMBEDDING_DIMENSIONS[options.model] ?? 0;

  async function request(texts: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const call = linkCallSignal(signal);
    try {
      const body = {
        model: options.model,
        input: texts,
        encoding_format: 'float' as const,
        ...(options.dimensions ? { dimensions: options.dimensions } : {}),
      };
      const response = await client.embeddings.create(body, { signal: call.signal });
      const vectors = vectorsInOrder(response, texts.length, provider);
      dimensions = checkedDimensions(vectors, dimensions, provider, options.model);
      return vectors;
    } catch (error) {
      throw toModelError(error, { provider, apiKey: options.apiKey, signal });
    } finally {
      call.unlink();
    }
  }

  async function embed(texts: readonly string[], callOptions?: { signal?: AbortSignal }): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    // One request at a time: a big document costs requests in sequence, never a burst.
    for (const batch of splitBatches(texts, limits)) out.push(...(await request(batch.texts, callOptions?.signal)));
    return out;
  }

  return {
    provider,
    modelId: options.model,
    get dimensions() {
      return dimensions;
    },
    maxBatch: limits.maxInputs,
    embed,
    async resolveDimensions(callOptions) {
      if (dimensions > 0) return dimensions;
      await request(['dimensions'], callOptions?.signal);
      return dimensions;
    },
  };
}

/** The answer's vectors by `index`, unit length; a missing, repeated or extra index is refused. */
function vectorsInOrder(response: CreateEmbeddingResponse, count: number, provider: string): Float32Array[] {
  const vectors: Array<Float32Array | undefined> = Array.from({ length: count }, () => undefined);
  for (const item of response.data ?? []) {
    const index = item.index;
    if (!Number.isInteger(index) || index < 0 || index >= count || vectors[index]) {
      throw malformed(provider, `an embedding with index ${index} for ${count} inputs`);
    }
    vectors[index] = normalizeVector(numbersOf(item.embedding as unknown, provider));
  }
  const missing = vectors.indexOf(undefined);
  if (missing !== -1) throw malformed(provider, `no embedding for input ${missing}`);
  return vectors as Float32Array[];
}

/**
 * The vector as numbers: a float array, or base64 float32 from a server that ignores
 * `encoding_format: 'float'`; anything else, or a non-finite number, is refused.
 */
function numbersOf(embedding: unknown, provider: string): ArrayLike<number> {
  const values =
    typeof embedding === 'string'
      ? base64Floats(embedding)
      : Array.isArray(embedding) && embedding.every((x) => typeof x === 'number')
        ? (embedding as number[])
        : undefined;
  if (!values || !Array.prototype.every.call(values, Number.isFinite)) {
    throw malformed(provider, 'an embedding that is not a list of finite numbers');
  }
  return values;
}

function base64Floats(text: string): Float32Array | undefined {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length === 0 || bytes.length % 4 !== 0) return undefined;
  const floats = new Float32Array(bytes.length / 4);
  for (let i = 0; i < floats.length; i++) floats[i] = bytes.readFloatLE(i * 4);
  return floats;
}

/** Every vector has the model's length (learned from the first answer when unknown). */
function checkedDimensions(vectors: Float32Array[], known: number, provider: string, model: string): number {
  const length = known > 0 ? known : (vectors[0]?.length ?? 0);
  const wrong = vectors.find((v) => v.length !== length || v.length === 0);
  if (wrong) {
    throw malformed(
      provider,
      `${model} returned ${wrong.length}-dimensional vectors, expected ${length} (does the server honour \`dimensions\`?)`,
    );
  }
  return length;
}

function malformed(provider: string, what: string) {
  return errors.upstream('model_bad_request', `${provider}: unexpected embeddings answer: ${what}`, {
    retryable: false,
    details: { provider },
  });
}
