import { type Env, EnvError, envString, envUrl } from '@agentry/env';
import { isAppError } from '@agentry/errors';
import { parseEmbeddingModelSpec } from './embedding-model-spec.ts';
import type { ModelPrice, ModelProviderSettings } from './model-settings.ts';

/**
 * The model credentials and default model names both apps read: OPENAI_*, ANTHROPIC_* and
 * EMBEDDING_MODEL (a `"<provider>/<model>"` spec, checked here so a typo stops the process).
 *
 * @example
 * modelSettingsFromEnv({ OPENAI_API_KEY: 'sk-…', EMBEDDING_MODEL: 'local/hashing-v1' });
 */
export function modelSettingsFromEnv(env: Env): ModelProviderSettings {
  const embeddingModel = embeddingModelFromEnv(env);
  const openaiKey = envString(env, 'OPENAI_API_KEY');
  const openaiBase = envUrl(env, 'OPENAI_BASE_URL', ['http:', 'https:']);
  const anthropicKey = envString(env, 'ANTHROPIC_API_KEY');
  const anthropicBase = envUrl(env, 'ANTHROPIC_BASE_URL', ['http:', 'https:']);
  const openaiModel = envString(env, 'OPENAI_MODEL');
  const anthropicModel = envString(env, 'ANTHROPIC_MODEL');
  const prices = pricesFromEnv(env);
  return {
    ...(prices ? { prices } : {}),
    ...(embeddingModel ? { embeddingModel } : {}),
    ...(openaiKey || openaiBase
      ? { openai: { ...(openaiKey ? { apiKey: openaiKey } : {}), ...(openaiBase ? { baseURL: openaiBase } : {}) } }
      : {}),
    ...(anthropicKey || anthropicBase
      ? {
          anthropic: {
            ...(anthropicKey ? { apiKey: anthropicKey } : {}),
            ...(anthropicBase ? { baseURL: anthropicBase } : {}),
          },
        }
      : {}),
    defaultModels: {
      ...(openaiModel ? { openai: openaiModel, openai_compatible: openaiModel } : {}),
      ...(anthropicModel ? { anthropic: anthropicModel } : {}),
    },
  };
}

/** `MODEL_PRICES`: JSON `{"<provider>/<model>": {"input": usd, "output": usd}}` per million tokens. */
function pricesFromEnv(env: Env): Record<string, ModelPrice> | undefined {
  const text = envString(env, 'MODEL_PRICES');
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new EnvError('MODEL_PRICES', 'is not JSON: {"openai/gpt-5.4-mini": {"input": 0.25, "output": 2}}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new EnvError('MODEL_PRICES', 'must be an object of "<provider>/<model>": {"input": …, "output": …}');
  const prices: Record<string, ModelPrice> = {};
  for (const [model, price] of Object.entries(parsed)) {
    const { input, output } = (price ?? {}) as Partial<ModelPrice>;
    const valid = (n: unknown) => typeof n === 'number' && Number.isFinite(n) && n >= 0;
    if (!model.includes('/') || !valid(input) || !valid(output))
      throw new EnvError(
        'MODEL_PRICES',
        `"${model}" needs "<provider>/<model>" and non-negative input and output prices`,
      );
    prices[model] = { input: input as number, output: output as number };
  }
  return prices;
}

function embeddingModelFromEnv(env: Env): string | undefined {
  const spec = envString(env, 'EMBEDDING_MODEL');
  if (spec === undefined) return undefined;
  try {
    parseEmbeddingModelSpec(spec);
  } catch (error) {
    if (isAppError(error)) throw new EnvError('EMBEDDING_MODEL', error.message);
    throw error;
  }
  return spec;
}
