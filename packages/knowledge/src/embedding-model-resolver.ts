import { errors } from '@agentry/errors';
import { createLocalEmbeddingModel, LOCAL_EMBEDDING_MODEL_ID, LOCAL_EMBEDDING_PROVIDER } from '@agentry/provider-demo';
import type { EmbeddingModelResolver } from './search/create-knowledge-search.ts';

/** The spec and size new bases get when they name no model. */
export const DEFAULT_KNOWLEDGE_EMBEDDING = {
  spec: `${LOCAL_EMBEDDING_PROVIDER}/${LOCAL_EMBEDDING_MODEL_ID}`,
  dimensions: 256,
} as const;

/**
 * The one place a base's embedding model is resolved until the models package resolves specs
 * (`embeddingModelFor`): the built-in `local/hashing-v1` only; any other spec is 503
 * `embeddings_not_configured`. Swap this resolver for the real one, nothing else changes.
 *
 * @example
 * const model = await builtinEmbeddingModelFor({ tenantId, spec: 'local/hashing-v1', dimensions: 256 });
 */
export const builtinEmbeddingModelFor: EmbeddingModelResolver = async ({ spec, dimensions }) => {
  if (spec !== DEFAULT_KNOWLEDGE_EMBEDDING.spec) {
    throw errors.unavailable('embeddings_not_configured', `The embedding model "${spec}" is not configured`);
  }
  return createLocalEmbeddingModel({ dimensions });
};
