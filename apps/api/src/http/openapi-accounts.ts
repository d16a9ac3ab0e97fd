import { z } from 'zod';
import { apiSchemas } from './openapi-schemas.ts';

/**
 * Response shapes of the dashboard-account routes (`/v1/auth`, `/v1/members`, `/v1/invitations`),
 * registered as OpenAPI components next to the others in `openapi-schemas.ts`. They mirror
 * `sessionView`, `memberView` and `invitationView`.
 */

function component<S extends z.ZodType>(id: string, schema: S, description?: string): S {
  apiSchemas.add(schema, { id, ...(description ? { description } : {}) });
  return schema;
}

const timestamp = z.iso.datetime({ offset: true });
const role = z.enum(['owner', 'editor', 'viewer']);
const list = <S extends z.ZodType>(item: S) =>
  z.object({
    object: z.literal('list'),
    data: z.array(item),
    next_cursor: z.string().nullable().describe('Pass as `?cursor=` to get the next page; null on the last page'),
  });

export const SessionSchema = component(
  'Session',
  z.object({
    object: z.literal('session'),
    user: z.object({
      id: z.uuid(),
      email: z.string(),
      name: z.string().nullable(),
      email_verified: z
        .boolean()
        .describe('false until the user confirms their address (`POST /v1/auth/email-confirmation`)'),
    }),
    mail_enabled: z
      .boolean()
      .describe(
        'Whether this server sends mail (confirmation and reset links); without it, no address can be confirmed',
      ),
    memberships: z
      .array(z.object({ tenant_id: z.uuid(), tenant_name: z.string(), role }))
      .describe('The active tenants the user may act in (send one as `X-Agentry-Tenant`)'),
    csrf_token: z.string().describe('Repeat as `X-CSRF-Token` on POST/PUT/PATCH/DELETE'),
  }),
  'The signed-in dashboard user; the session itself is the httpOnly `agentry_session` cookie',
);

export const MemberSchema = component(
  'Member',
  z.object({
    object: z.literal('member'),
    user_id: z.uuid(),
    email: z.string(),
    name: z.string().nullable(),
    email_verified: z
      .boolean()
      .describe('Whether the member proved they read this address (false: joined through a link shown to an inviter)'),
    role,
    created_at: timestamp,
  }),
);
export const MemberListSchema = component('MemberList', list(MemberSchema));

export const InvitationSchema = component(
  'Invitation',
  z.object({
    object: z.literal('invitation'),
    id: z.uuid(),
    email: z.string(),
    role,
    delivery: z
      .enum(['email', 'link'])
      .describe(
        '`email`: the link was mailed to the invitee; `link`: no mail is configured and the inviter was shown it',
      ),
    invited_by: z.uuid().nullable().describe('The inviting user; null when invited by the operator or an API key'),
    created_at: timestamp,
    expires_at: timestamp,
  }),
);
export const InvitationCreatedSchema = component(
  'InvitationCreated',
  InvitationSchema.extend({
    token: z.string().optional().describe('Only with `delivery: link`: shown once'),
    accept_url: z
      .string()
      .optional()
      .describe('Only with `delivery: link`: the dashboard page where the invited person accepts'),
    note: z.string(),
  }),
);
export const InvitationListSchema = component('InvitationList', list(InvitationSchema));

export const PasswordResetRequestedSchema = component(
  'PasswordResetRequested',
  z.object({ object: z.literal('password_reset_request'), note: z.string() }),
  'The same answer whether or not the email has an account',
);
