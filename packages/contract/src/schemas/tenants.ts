import { z } from 'zod';
import { PG_INTEGER_MAX } from '../limits.ts';
import { component, id, timestamp } from './common.ts';

/** Tenants, as the platform operator manages them (`/v1/tenants`). */

export const TenantSchema = component(
  'Tenant',
  z.looseObject({
    id,
    object: z.literal('tenant'),
    name: z.string(),
    status: z.enum(['active', 'suspended']),
    egress_allowlist: z.array(z.string()),
    daily_run_limit: z.int().nullable(),
    daily_token_limit: z.int().nullable(),
    requests_per_minute: z.int().nullable(),
    created_at: timestamp,
  }),
);
export const TenantCreatedSchema = component(
  'TenantCreated',
  TenantSchema.extend({
    api_key: z.object({ id, key: z.string(), prefix: z.string(), note: z.string() }),
    owner_invitation: z
      .object({
        id,
        email: z.string(),
        delivery: z.enum(['email', 'link']),
        token: z.string().optional().describe('Only with `delivery: link`: shown once'),
        accept_url: z.string().optional().describe('Only with `delivery: link`'),
        expires_at: timestamp,
      })
      .optional()
      .describe('With `owner_email`: the first owner’s invitation, mailed (or, with `delivery: link`, shown once)'),
  }),
);

export type Tenant = z.infer<typeof TenantSchema>;
export type TenantCreated = z.infer<typeof TenantCreatedSchema>;

// ---- request bodies ------------------------------------------------------------------------

/** `POST /v1/tenants`. */
export const CreateTenantBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  /** Invites this email as the tenant's first owner (dashboard). */
  owner_email: z.email().max(320).optional(),
});
export type CreateTenantBody = z.input<typeof CreateTenantBody>;

/** `PATCH /v1/tenants/{id}`: the fields to change (a null limit removes it). */
export const UpdateTenantBody = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  status: z.enum(['active', 'suspended']).optional(),
  egress_allowlist: z.array(z.string().min(1).max(253)).max(100).optional(),
  daily_run_limit: z.number().int().min(0).max(PG_INTEGER_MAX).nullable().optional(),
  daily_token_limit: z.number().int().min(0).max(PG_INTEGER_MAX).nullable().optional(),
  requests_per_minute: z.number().int().min(1).max(1_000_000).nullable().optional(),
});
export type UpdateTenantBody = z.input<typeof UpdateTenantBody>;
