/**
 * The provider-neutral embedding spec: texts in, one vector per text out. Knowledge bases embed
 * their chunks and each query with the same model (a base records which), so vectors compare.
 *
 * @example
 * const [vector] = await model.embed(['How do I reset my password?']);
 */
export interface EmbeddingModel {
  /** `openai`, `openai_compatible`, `local`, … */
  readonly provider: string;
  readonly modelId: string;
  /**
   * The length of every vector this model returns; `0` while unknown (an OpenAI-compatible model
   * of unknown size before its first answer): `resolveEmbeddingDimensions(model)` learns it.
   */
  readonly dimensions: number;
  /** The most texts one `embed` call sends (callers batch by it). */
  readonly maxBatch: number;
  /**
   * One unit-length vector per text, in order. Errors are `AppError`s like the language models'
   * (`model_rate_limited` with a retry delay, `model_connection_failed`, …).
   */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
  /**
   * Vectors for search queries, when the model embeds a query unlike a passage (the built-in
   * lexical model drops stopwords; models with query and document modes would ask for the query
   * one). Optional: without it a query is embedded with `embed`.
   */
  embedQuery?(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
  /**
   * The vector length, asking the provider once when it is not known up front (embeds one short
   * word). Optional: models whose `dimensions` is always known need not have it.
   */
  resolveDimensions?(options?: { signal?: AbortSignal }): Promise<number>;
}

/**
 * A model's vector length, known or learned: what a knowledge base records when it is created
 * (costs one tiny embedding call for an unknown OpenAI-compatible model, then nothing).
 *
 * @example
 * const dimensions = await resolveEmbeddingDimensions(model); // 1536 for openai/text-embedding-3-small
 */
export async function resolveEmbeddingDimensions(
  model: EmbeddingModel,
  options: { signal?: AbortSignal } = {},
): Promise<number> {
  if (model.dimensions > 0) return model.dimensions;
  if (model.resolveDimensions) return model.resolveDimensions(options);
  const [vector] = await model.embed(['dimensions'], options);
  return vector?.length ?? 0;
}

/** Scales a vector to unit length (a zero vector stays zero), so a dot product is the cosine. */
export function normalizeVector(vector: ArrayLike<number>): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += (vector[i] as number) ** 2;
  const norm = Math.sqrt(sum);
  const out = new Float32Array(vector.length);
  if (norm === 0) return out;
  for (let i = 0; i < vector.length; i++) out[i] = (vector[i] as number) / norm;
  return out;
}
