import { type EmbeddingModel, normalizeVector } from '@agentry/llm';
import { lexicalFeatures, queryFeatures } from './lexical-features.ts';

/** The provider name of the built-in embeddings (`local/hashing-v1`). */
export const LOCAL_EMBEDDING_PROVIDER = 'local';
export const LOCAL_EMBEDDING_MODEL_ID = 'hashing-v1';

/** FNV-1a, 32 bits: stable across processes and versions (stored vectors depend on it). */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Built-in embeddings with no model and no network: feature hashing of words (and of characters
 * and bigrams in unsegmented scripts) into a fixed-size unit vector. Lexical, not semantic — what
 * an install with no embedding provider gets, labelled `local/hashing-v1`. Deterministic, so the
 * test kit's fake model answers `/v1/embeddings` with it too. A search query is hashed without its
 * stopwords (`embedQuery`): lexical vectors have no weighting that would make "how", "do" and "my"
 * count for less than the words that matter.
 *
 * @example
 * const model = createLocalEmbeddingModel();
 * const [a, b] = await model.embed(['refund policy', 'How do refunds work?']);
 * const [query] = await model.embedQuery!(['How do I get a refund?']);
 */
export function createLocalEmbeddingModel(options: { dimensions?: number } = {}): EmbeddingModel {
  const dimensions = options.dimensions ?? 256;
  return {
    provider: LOCAL_EMBEDDING_PROVIDER,
    modelId: LOCAL_EMBEDDING_MODEL_ID,
    dimensions,
    maxBatch: 512,
    async embed(texts) {
      return texts.map((text) => hashEmbedding(text, dimensions));
    },
    async embedQuery(texts) {
      return texts.map((text) => hashFeatures(queryFeatures(text), dimensions));
    },
  };
}

/** One text's hashed vector (sublinear term counts, signed buckets), unit length. */
export function hashEmbedding(text: string, dimensions: number): Float32Array {
  return hashFeatures(lexicalFeatures(text), dimensions);
}

function hashFeatures(features: readonly string[], dimensions: number): Float32Array {
  const counts = new Map<string, number>();
  for (const feature of features) counts.set(feature, (counts.get(feature) ?? 0) + 1);
  const vector = new Float32Array(dimensions);
  for (const [feature, count] of counts) {
    const h = hash(feature);
    vector[h % dimensions]! += (h & 0x80000000 ? -1 : 1) * (1 + Math.log(count));
  }
  return normalizeVector(vector);
}
