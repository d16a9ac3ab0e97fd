import { type Env, EnvError, envString, envUrl } from '@agentry/env';
import { isAppError } from '@agentry/errors';
import { parseEmbeddingModelSpec } from './embedding-model-spec.ts';
import type { ModelProviderSettings } from './model-settings.ts';

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
  return {
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
