import type { EmbeddingModel } from '@agentry/llm';
import { createLocalEmbeddingModel } from '@agentry/provider-demo';
import { createOpenAIEmbeddingModel } from '@agentry/provider-openai';
import { LRUCache } from 'lru-cache';
import {
  type EmbeddingModelSpec,
  LOCAL_EMBEDDING_SPEC,
  notConfigured,
  OPENAI_EMBEDDING_SPEC,
  parseEmbeddingModelSpec,
} from './embedding-model-spec.ts';
import type { ModelProviderSettings, ProviderCredentials } from './model-settings.ts';

/** What `embeddingModelFor` needs besides the spec and the settings. */
export interface EmbeddingModelOptions {
  /**
   * The egress-guarded fetch (`egressModelFetch(policy)` of `@agentry/http-tools`): required when
   * the provider's base URL is a tenant's (`ProviderCredentials.tenantChosen`), as for chat models.
   */
  fetch?: typeof fetch;
  /** Shorter vectors from models that support it (`text-embedding-3-*`), sent as `dimensions`. */
  dimensions?: number;
}

/**
 * The embedding model a knowledge base is created with when it names none: the operator's
 * `EMBEDDING_MODEL` if set, else `openai/text-embedding-3-small` when OpenAI itself is configured
 * (a key and no other base URL, the tenant's own provider or the operator's), else the built-in
 * `local/hashing-v1`. Pass the tenant's settings (`withTenantProviders`).
 *
 * @example
 * defaultEmbeddingModelSpec({ openai: { apiKey: 'sk-…' } }); // 'openai/text-embedding-3-small'
 * defaultEmbeddingModelSpec({}); // 'local/hashing-v1'
 */
export function defaultEmbeddingModelSpec(settings: ModelProviderSettings): string {
  if (settings.embeddingModel) return settings.embeddingModel;
  return isOpenAIItself(settings.openai) ? OPENAI_EMBEDDING_SPEC : LOCAL_EMBEDDING_SPEC;
}

/** A key for api.openai.com: another base URL (a gateway, Ollama) may not serve OpenAI's models. */
function isOpenAIItself(creds: ProviderCredentials | undefined): boolean {
  if (!creds?.apiKey) return false;
  if (!creds.baseURL) return true;
  try {
    return new URL(creds.baseURL).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

/** Built models by everything that tells them apart: a model learns its dimensions once. */
const builtModels = new LRUCache<string, EmbeddingModel>({ max: 256 });

/**
 * The embedding model for a spec (`openai/text-embedding-3-small`, `openai_compatible/bge-m3`,
 * `local/hashing-v1`) with the platform's or a tenant's credentials (the same settings chat models
 * resolve with: `withTenantProviders(platform, tenantProviders)`). `openai_compatible` uses the
 * tenant's compatible provider, else the operator's `OPENAI_*`. Throws `embeddings_not_configured`
 * for an unknown spec or missing credentials, and a plain Error when a tenant's base URL comes
 * without `options.fetch` (a tenant's address is never called unguarded). Learn an unknown
 * compatible model's vector length with `resolveEmbeddingDimensions(model)` (`@agentry/llm`).
 *
 * @example
 * const model = embeddingModelFor('openai/text-embedding-3-small', settings, { fetch: egressModelFetch(policy) });
 * const dimensions = await resolveEmbeddingDimensions(model); // 1536
 */
export function embeddingModelFor(
  spec: string,
  settings: ModelProviderSettings,
  options: EmbeddingModelOptions = {},
): EmbeddingModel {
  const parsed = parseEmbeddingModelSpec(spec);
  if (parsed.provider === 'local') return createLocalEmbeddingModel();
  const creds = credentialsFor(parsed, settings);
  const guarded = Boolean(creds.baseURL && creds.tenantChosen);
  if (guarded && !options.fetch) throw new Error('A tenant’s embedding base URL needs the egress-guarded fetch');
  const build = () =>
    createOpenAIEmbeddingModel({
      provider: parsed.provider as 'openai' | 'openai_compatible',
      model: parsed.model,
      // A base URL alone is enough for local servers that need no key (as for chat models).
      apiKey: creds.apiKey ?? 'not-needed',
      ...(creds.baseURL ? { baseURL: creds.baseURL } : {}),
      ...(options.dimensions ? { dimensions: options.dimensions } : {}),
      ...(settings.maxRetries !== undefined ? { maxRetries: settings.maxRetries } : {}),
      ...(guarded && options.fetch ? { fetch: options.fetch } : {}),
    });
  // A guarded model carries the caller's fetch (its policy): never shared.
  if (guarded) return build();
  const key = JSON.stringify([spec, creds.apiKey, creds.baseURL, options.dimensions, settings.maxRetries]);
  let model = builtModels.get(key);
  if (!model) {
    model = build();
    builtModels.set(key, model);
  }
  return model;
}

/** `openai_compatible` falls back to the operator's OpenAI settings (`OPENAI_BASE_URL` serves both). */
function credentialsFor(spec: EmbeddingModelSpec, settings: ModelProviderSettings): ProviderCredentials {
  const creds =
    spec.provider === 'openai_compatible' ? (settings.openai_compatible ?? settings.openai) : settings.openai;
  if (spec.provider === 'openai' && !creds?.apiKey && !creds?.baseURL) {
    throw notConfigured(
      `Embedding model openai/${spec.model} needs an OpenAI API key: add the openai provider in Settings → Model providers, or the operator sets OPENAI_API_KEY (or EMBEDDING_MODEL=${LOCAL_EMBEDDING_SPEC} for the built-in embeddings)`,
    );
  }
  if (spec.provider === 'openai_compatible' && !creds?.baseURL) {
    throw notConfigured(
      `Embedding model openai_compatible/${spec.model} needs a base URL: add the openai_compatible provider in Settings → Model providers, or the operator sets OPENAI_BASE_URL`,
    );
  }
  return creds!;
}
