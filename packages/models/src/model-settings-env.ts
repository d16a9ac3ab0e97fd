import { type Env, envString, envUrl } from '@agentry/env';
import type { ModelProviderSettings } from './model-settings.ts';

/** The model credentials and default model names both apps read: OPENAI_* and ANTHROPIC_*. */
export function modelSettingsFromEnv(env: Env): ModelProviderSettings {
  const openaiKey = envString(env, 'OPENAI_API_KEY');
  const openaiBase = envUrl(env, 'OPENAI_BASE_URL', ['http:', 'https:']);
  const anthropicKey = envString(env, 'ANTHROPIC_API_KEY');
  const anthropicBase = envUrl(env, 'ANTHROPIC_BASE_URL', ['http:', 'https:']);
  const openaiModel = envString(env, 'OPENAI_MODEL');
  const anthropicModel = envString(env, 'ANTHROPIC_MODEL');
  return {
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
