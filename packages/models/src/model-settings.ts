import { errors } from '@agentry/errors';
import type { LanguageModel } from '@agentry/llm';
import { createAnthropicModel } from '@agentry/provider-anthropic';
import { createDemoModel, DEMO_MODEL_ID } from '@agentry/provider-demo';
import { createOpenAIModel } from '@agentry/provider-openai';
import { LRUCache } from 'lru-cache';

/** `demo`: the built-in stand-in of a platform with no model configured (never chosen by a config). */
export type ProviderName = 'openai' | 'anthropic' | 'openai_compatible' | 'demo';

/** Platform-wide model credentials, read from the environment by each app and passed in. */
export interface ModelProviderSettings {
  openai?: ProviderCredentials;
  anthropic?: ProviderCredentials;
  /** A tenant's own OpenAI-compatible server (the operator's `OPENAI_BASE_URL` is `openai`). */
  openai_compatible?: ProviderCredentials;
  /** The provider an agent that names none runs on (a tenant's choice); else the first configured. */
  defaultProvider?: ConfigurableProvider;
  /** Model used when an agent config names none. */
  defaultModels?: Partial<Record<ProviderName, string>>;
  maxRetries?: number;
  /**
   * The operator's embedding model for new knowledge bases (`EMBEDDING_MODEL`, a
   * `"<provider>/<model>"` spec); unset: `defaultEmbeddingModelSpec` picks one.
   */
  embeddingModel?: string;
  /**
   * Answer with the built-in demo model when no provider is configured at all (the embedded mode's
   * first hour). Off as soon as any provider is configured.
   */
  demo?: boolean;
  /**
   * List prices in USD per million tokens by `"<provider>/<model>"` (`MODEL_PRICES`), for the cost
   * test runs report (issue 22); a model not listed has an unknown cost (the demo model costs 0).
   */
  prices?: Record<string, ModelPrice>;
}

/** USD per million input and output tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}

/** The providers a tenant or the operator configures (not `demo`). */
export type ConfigurableProvider = Exclude<ProviderName, 'demo'>;

/** A provider's key and base URL: either alone may be enough (a local server needs no key). */
export interface ProviderCredentials {
  apiKey?: string;
  baseURL?: string;
  /**
   * The base URL is a tenant's choice, not the operator's: calls to it must go through the
   * platform's egress guard (`createModel`'s `fetch`), like the tenant's tools.
   */
  tenantChosen?: boolean;
}

/** What an agent asks for (from its config's `model` block). */
export interface AgentModelChoice {
  provider?: ProviderName;
  name?: string;
  /** The agent's own API key (from a tenant secret); replaces the platform's. */
  apiKey?: string;
}

const FALLBACK_MODELS: Record<ProviderName, string> = {
  openai: 'gpt-5.4-mini',
  openai_compatible: 'gpt-5.4-mini',
  anthropic: 'claude-sonnet-4-6',
  demo: DEMO_MODEL_ID,
};

export interface ResolvedModel {
  provider: ProviderName;
  name: string;
  apiKey: string;
  baseURL?: string;
  /** The base URL is a tenant's: `createModel` must be given the egress-guarded `fetch`. */
  guarded?: true;
}

/**
 * Picks the provider and credentials for an agent; throws `model_not_configured` (before anything
 * is written) when the platform has none for it.
 *
 * @example
 * resolveModel({ provider: 'anthropic' }, { anthropic: { apiKey: 'sk-ant-…' } });
 */
export function resolveModel(choice: AgentModelChoice, settings: ModelProviderSettings): ResolvedModel {
  if (settings.demo && !choice.apiKey && !defaultProvider(settings)) {
    return { provider: 'demo', name: DEMO_MODEL_ID, apiKey: 'not-needed' };
  }
  const provider = choice.provider ?? defaultProvider(settings) ?? (choice.apiKey ? 'openai' : undefined);
  if (!provider) throw errors.modelNotConfigured();
  const platform = credentialsOf(settings, provider);
  const creds = choice.apiKey ? { ...platform, apiKey: choice.apiKey } : platform;
  // A base URL alone is enough for local OpenAI-compatible servers (Ollama, vLLM) that need no key.
  if (!creds?.apiKey && !creds?.baseURL) throw errors.modelNotConfigured(provider);
  const name = choice.name ?? settings.defaultModels?.[provider] ?? FALLBACK_MODELS[provider];
  return {
    provider,
    name,
    apiKey: creds.apiKey ?? 'not-needed',
    ...(creds.baseURL ? { baseURL: creds.baseURL } : {}),
    ...(creds.baseURL && creds.tenantChosen ? { guarded: true as const } : {}),
  };
}

/**
 * Whether runs answer with the built-in demo model unless an agent or tenant brings its own key:
 * the demo is on and the platform has no provider.
 *
 * @example
 * usesDemoModel({ demo: true }); // true
 */
export function usesDemoModel(settings: ModelProviderSettings): boolean {
  return settings.demo === true && !defaultProvider(settings);
}

/** `openai_compatible` falls back to the operator's OpenAI settings (`OPENAI_BASE_URL` serves both). */
function credentialsOf(settings: ModelProviderSettings, provider: ProviderName): ProviderCredentials | undefined {
  if (provider === 'anthropic') return settings.anthropic;
  if (provider === 'openai_compatible') return settings.openai_compatible ?? settings.openai;
  return settings.openai;
}

const isSet = (creds: ProviderCredentials | undefined) => Boolean(creds?.apiKey || creds?.baseURL);

function defaultProvider(settings: ModelProviderSettings): ProviderName | undefined {
  if (settings.defaultProvider && isSet(credentialsOf(settings, settings.defaultProvider))) {
    return settings.defaultProvider;
  }
  if (isSet(settings.openai)) return 'openai';
  if (isSet(settings.anthropic)) return 'anthropic';
  if (isSet(settings.openai_compatible)) return 'openai_compatible';
  return undefined;
}

/**
 * The models built so far, by everything that tells them apart. A model keeps no state between
 * calls, so every run of the process with the same choice shares one: building the SDK client per
 * run cost the worker ≈ 1.5 % of its CPU (bench/durable-runs). Bounded, as tenants' own keys vary.
 */
const builtModels = new LRUCache<string, LanguageModel>({ max: 256 });

/**
 * The SDK-backed model for a resolved choice (built once per distinct choice and settings). A
 * `guarded` choice (a tenant's base URL) is built with `options.fetch`, the egress-guarded fetch,
 * and never shared: it throws without one, so a tenant's address is never called unguarded.
 *
 * @example
 * const model = createModel(resolveModel({ provider: 'openai', name: 'gpt-5.4-mini' }, settings), settings);
 */
export function createModel(
  resolved: ResolvedModel,
  settings: ModelProviderSettings,
  options: { fetch?: typeof fetch } = {},
): LanguageModel {
  if (resolved.guarded) {
    if (!options.fetch) throw new Error('A tenant’s model base URL needs the egress-guarded fetch');
    return buildModel(resolved, settings, options.fetch);
  }
  const key = JSON.stringify([
    resolved.provider,
    resolved.name,
    resolved.apiKey,
    resolved.baseURL,
    settings.maxRetries,
  ]);
  let model = builtModels.get(key);
  if (!model) {
    model = buildModel(resolved, settings);
    builtModels.set(key, model);
  }
  return model;
}

function buildModel(resolved: ResolvedModel, settings: ModelProviderSettings, fetchImpl?: typeof fetch): LanguageModel {
  const common = {
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
    apiKey: resolved.apiKey,
    model: resolved.name,
    ...(resolved.baseURL ? { baseURL: resolved.baseURL } : {}),
    ...(settings.maxRetries !== undefined ? { maxRetries: settings.maxRetries } : {}),
  };
  if (resolved.provider === 'demo') return createDemoModel();
  if (resolved.provider === 'anthropic') return createAnthropicModel(common);
  return createOpenAIModel({ ...common, provider: resolved.provider });
}
