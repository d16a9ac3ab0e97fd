// A tenant's embedding models: what knowledge bases embed their chunks and queries with. The same
// settings as its chat models (its own providers over the operator's), a tenant's base URL only
// through the egress guard.
import type { Db } from '@agentry/db';
import { errors } from '@agentry/errors';
import { type EgressPolicy, egressModelFetch, strictEgressPolicy } from '@agentry/http-tools';
import { type EmbeddingModel, resolveEmbeddingDimensions } from '@agentry/llm';
import { defaultEmbeddingModelSpec, embeddingModelFor, type ModelProviderSettings } from '@agentry/models';
import type { SecretBox } from '@agentry/secrets';
import { loadTenantModelSettings } from './tenant-models.ts';

export interface TenantEmbeddings {
  /** A base's model, by the spec and vector size the base was made with. */
  modelFor(params: { tenantId: string; spec: string; dimensions: number }): Promise<EmbeddingModel>;
  /**
   * A new base's model: the one asked for, else the tenant's default (`EMBEDDING_MODEL`, else
   * OpenAI's when the tenant or operator has an OpenAI key, else the built-in `local/hashing-v1`),
   * with its vector size (asked of the provider once when the model's size is not known).
   */
  choose(tenantId: string, requested?: string): Promise<{ spec: string; dimensions: number }>;
}

/** The built-in model needs no provider: no read of the tenant's providers for it. */
const isLocal = (spec: string) => spec.startsWith('local/');

/**
 * @example
 * const embeddings = tenantEmbeddings({ db, models: config.models, secretBox, egress });
 * const search = createKnowledgeSearch({ db, embeddingModelFor: embeddings.modelFor });
 */
export function tenantEmbeddings(deps: {
  db: Db;
  models: ModelProviderSettings;
  secretBox?: SecretBox | undefined;
  egress?: EgressPolicy | undefined;
}): TenantEmbeddings {
  const fetch = egressModelFetch(deps.egress ?? strictEgressPolicy);
  const settingsOf = (tenantId: string, spec?: string) =>
    spec !== undefined && isLocal(spec) ? deps.models : loadTenantModelSettings(deps.db, deps, tenantId);

  return {
    async modelFor({ tenantId, spec, dimensions }) {
      const settings = await settingsOf(tenantId, spec);
      // Only the built-in model takes any size; a provider's model answers in the size it was made with.
      return embeddingModelFor(spec, settings, { fetch, ...(isLocal(spec) ? { dimensions } : {}) });
    },
    async choose(tenantId, requested) {
      const settings = await settingsOf(tenantId, requested);
      // A model the caller names that cannot be built here is their input's fault (422 at the field),
      // not the platform's (503 stays for the default model and for a provider that does not answer).
      const requestedModel = (spec: string) => {
        try {
          return embeddingModelFor(spec, settings, { fetch });
        } catch (error) {
          throw errors.validation('The embedding model cannot be used here', [
            {
              path: '/embedding_model',
              code: 'unknown_model',
              message: error instanceof Error ? error.message : String(error),
            },
          ]);
        }
      };
      const spec = requested ?? defaultEmbeddingModelSpec(settings);
      const model = requested === undefined ? embeddingModelFor(spec, settings, { fetch }) : requestedModel(spec);
      try {
        return { spec, dimensions: await resolveEmbeddingDimensions(model) };
      } catch (error) {
        throw errors.unavailable(
          'embeddings_not_configured',
          `The embedding model "${spec}" did not answer: ${error instanceof Error ? error.message : String(error)}`,
          5000,
        );
      }
    },
  };
}
