import { type AppError, errors } from '@agentry/errors';
import { LOCAL_EMBEDDING_MODEL_ID, LOCAL_EMBEDDING_PROVIDER } from '@agentry/provider-demo';

/** The providers an embedding model spec may name. */
export type EmbeddingProviderName = 'openai' | 'openai_compatible' | 'local';

/** A parsed `"<provider>/<model>"` spec. */
export interface EmbeddingModelSpec {
  provider: EmbeddingProviderName;
  /** Everything after the first `/` (a compatible server's names may hold slashes: `BAAI/bge-m3`). */
  model: string;
}

/** The built-in embeddings: no provider, no network, lexical only. */
export const LOCAL_EMBEDDING_SPEC = `${LOCAL_EMBEDDING_PROVIDER}/${LOCAL_EMBEDDING_MODEL_ID}`;
/** What a platform or tenant with OpenAI embeds with unless the operator sets `EMBEDDING_MODEL`. */
export const OPENAI_EMBEDDING_SPEC = 'openai/text-embedding-3-small';

const PROVIDERS: readonly EmbeddingProviderName[] = ['openai', 'openai_compatible', 'local'];
const MAX_SPEC_LENGTH = 200;

/**
 * Parses `"<provider>/<model>"`; throws `embeddings_not_configured` for a malformed spec, an
 * unknown provider or an unknown local model (the message lists what is accepted).
 *
 * @example
 * parseEmbeddingModelSpec('openai_compatible/BAAI/bge-m3'); // { provider: 'openai_compatible', model: 'BAAI/bge-m3' }
 */
export function parseEmbeddingModelSpec(spec: string): EmbeddingModelSpec {
  const slash = spec.indexOf('/');
  const provider = spec.slice(0, slash);
  const model = spec.slice(slash + 1).trim();
  if (slash <= 0 || !model || spec.length > MAX_SPEC_LENGTH || /[\s\p{Cc}]/u.test(spec)) {
    throw notConfigured(
      `"${spec.slice(0, MAX_SPEC_LENGTH)}" is not an embedding model: use "<provider>/<model>", e.g. ${OPENAI_EMBEDDING_SPEC} or ${LOCAL_EMBEDDING_SPEC}`,
    );
  }
  if (!PROVIDERS.includes(provider as EmbeddingProviderName)) {
    throw notConfigured(`Unknown embedding provider "${provider}": use one of ${PROVIDERS.join(', ')}`);
  }
  if (provider === LOCAL_EMBEDDING_PROVIDER && model !== LOCAL_EMBEDDING_MODEL_ID) {
    throw notConfigured(`Unknown local embedding model "${model}": the built-in one is ${LOCAL_EMBEDDING_SPEC}`);
  }
  return { provider: provider as EmbeddingProviderName, model };
}

/**
 * The `embeddings_not_configured` error (503): embeddings cannot be made with what is configured.
 *
 * @example
 * throw notConfigured('No OpenAI API key is configured for openai/text-embedding-3-small');
 */
export function notConfigured(message: string): AppError {
  return errors.of({ code: 'embeddings_not_configured', message, category: 'system', retryable: false });
}
