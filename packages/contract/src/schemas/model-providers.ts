import { z } from 'zod';
import { MAX_SECRET_BYTES } from '../limits.ts';
import { component, list, timestamp } from './common.ts';

/** A tenant's own model providers: keys go in and are never shown again (only `api_key_set`). */

export const MODEL_PROVIDER_KINDS = ['openai', 'anthropic', 'openai_compatible'] as const;
export const ModelProviderKindSchema = z.enum(MODEL_PROVIDER_KINDS);
export type ModelProviderKind = z.infer<typeof ModelProviderKindSchema>;

export const ModelProviderSchema = component(
  'ModelProvider',
  z.object({
    object: z.literal('model_provider'),
    provider: ModelProviderKindSchema,
    base_url: z.string().nullable(),
    api_key_set: z.boolean().describe('Whether an API key is stored (it is never returned)'),
    default_model: z.string().nullable().describe('The model an agent that names none runs on'),
    is_default: z.boolean().describe('Whether agents that name no provider use this one'),
    models: z
      .array(z.string())
      .describe('Models to offer: the last connection test’s list, else well-known names of the provider'),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);
export const ModelProviderListSchema = component('ModelProviderList', list(ModelProviderSchema));
export const ModelProviderPutSchema = component(
  'ModelProviderPut',
  ModelProviderSchema.omit({ models: true, created_at: true, updated_at: true }).extend({ created: z.boolean() }),
);
export const ModelProviderTestSchema = component(
  'ModelProviderTest',
  z.object({
    object: z.literal('model_provider_test'),
    provider: ModelProviderKindSchema,
    ok: z.boolean(),
    latency_ms: z.number().int().nonnegative(),
    models: z.array(z.string()).describe('The models the provider listed (empty when the test failed)'),
    error: z
      .object({ code: z.string(), message: z.string(), status: z.number().int().optional() })
      .optional()
      .describe(
        'Why the test failed: a stable code of the error table (`model_auth_failed`, `model_connection_failed`, `egress_*`)',
      ),
  }),
);

export type ModelProvider = z.infer<typeof ModelProviderSchema>;
export type ModelProviderList = z.infer<typeof ModelProviderListSchema>;
export type ModelProviderPut = z.infer<typeof ModelProviderPutSchema>;
export type ModelProviderTest = z.infer<typeof ModelProviderTestSchema>;

const baseUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .describe('The provider’s API base URL (OpenAI-compatible: up to `/v1`); null: the provider’s own');

/** `PUT /v1/model-providers/{provider}`: an absent field keeps its stored value, null clears it. */
export const PutModelProviderBody = z.strictObject({
  api_key: z.string().min(1).max(MAX_SECRET_BYTES).nullable().optional(),
  base_url: baseUrl.nullable().optional(),
  default_model: z.string().trim().min(1).max(200).nullable().optional(),
  is_default: z.boolean().optional(),
});
export type PutModelProviderBody = z.input<typeof PutModelProviderBody>;
