import { z } from 'zod';
import { component, id, list, timestamp } from './common.ts';

/** The audit log (`GET /v1/audit-events`): who changed what. */

export const AuditEventSchema = component(
  'AuditEvent',
  z.object({
    id,
    object: z.literal('audit_event'),
    action: z.string(),
    actor: z.union([
      z.object({ type: z.literal('user'), user_id: id, email: z.string().nullable() }),
      z.object({
        type: z.enum(['api_key', 'platform']),
        api_key_id: z.string().nullable(),
        api_key_prefix: z.string().nullable(),
      }),
    ]),
    target: z.object({ type: z.string(), id: z.string().nullable() }),
    details: z.record(z.string(), z.unknown()).nullable(),
    created_at: timestamp,
  }),
);
export const AuditEventListSchema = component('AuditEventList', list(AuditEventSchema));

export type AuditEvent = z.infer<typeof AuditEventSchema>;
export type AuditEventList = z.infer<typeof AuditEventListSchema>;
