import { z } from 'zod';
import { MAX_SECRET_BYTES } from '../limits.ts';
import { component, list, timestamp } from './common.ts';

/** Tenant secrets: names and dates only, never a value. */

export const SecretSchema = component(
  'Secret',
  z.object({ object: z.literal('secret'), name: z.string(), created_at: timestamp, updated_at: timestamp }),
);
export const SecretListSchema = component('SecretList', list(SecretSchema));
export const SecretPutSchema = component(
  'SecretPut',
  z.object({ object: z.literal('secret'), name: z.string(), created: z.boolean() }),
);

export type Secret = z.infer<typeof SecretSchema>;
export type SecretList = z.infer<typeof SecretListSchema>;
export type SecretPut = z.infer<typeof SecretPutSchema>;

/** `PUT /v1/secrets/{name}`. */
export const PutSecretBody = z.strictObject({ value: z.string().min(1).max(MAX_SECRET_BYTES) });
export type PutSecretBody = z.input<typeof PutSecretBody>;
