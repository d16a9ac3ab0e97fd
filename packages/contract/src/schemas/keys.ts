import { z } from 'zod';
import { component, id, list, timestamp } from './common.ts';

/** API keys: secret keys for servers, publishable keys for the widget. */

export const ApiKeySchema = component(
  'ApiKey',
  z.object({
    id,
    object: z.literal('api_key'),
    kind: z.enum(['secret', 'publishable']),
    name: z.string().nullable(),
    prefix: z.string(),
    scopes: z.array(z.string()),
    agents: z.array(z.string()),
    allowed_origins: z.array(z.string()),
    created_at: timestamp,
    last_used_at: timestamp.nullable(),
    revoked_at: timestamp.nullable(),
    key: z
      .string()
      .nullable()
      .optional()
      .describe(
        'Publishable keys, for owners and editors: the key itself (it is public, in every page that embeds the widget); null for a key made before keys were kept (create a new one to see it). Never present for secret keys.',
      ),
  }),
);
export const ApiKeyCreatedSchema = component(
  'ApiKeyCreated',
  ApiKeySchema.extend({
    key: z.string().describe('The key itself (a secret key’s only here)'),
    note: z.string().optional(),
  }),
);
export const ApiKeyListSchema = component('ApiKeyList', list(ApiKeySchema));

export type ApiKey = z.infer<typeof ApiKeySchema>;
/** The answer of `POST /v1/api-keys`: the key itself (a secret key's only there). */
export type ApiKeyCreated = z.infer<typeof ApiKeyCreatedSchema>;
export type ApiKeyList = z.infer<typeof ApiKeyListSchema>;

/**
 * `POST /v1/api-keys`: a secret key names its `scopes`; a publishable key its `agents` and
 * `allowed_origins` (the API checks which fields go with which kind).
 */
export const NewApiKeyBody = z.strictObject({
  kind: z.enum(['secret', 'publishable']),
  name: z.string().trim().min(1).max(200).optional(),
  scopes: z.array(z.string()).min(1).max(40).optional(),
  agents: z.array(z.string()).min(1).max(100).optional(),
  allowed_origins: z.array(z.string()).min(1).max(50).optional(),
});
export type NewApiKeyBody = z.input<typeof NewApiKeyBody>;
