import { z } from 'zod';
import { PASSWORD_MAX_LENGTH } from '../limits.ts';
import { component, id, list, RoleSchema, timestamp } from './common.ts';

/**
 * Dashboard accounts: the session (`/v1/auth`), a tenant's members (`/v1/members`) and
 * invitations (`/v1/invitations`), and the bodies of those routes.
 */

export const SessionSchema = component(
  'Session',
  z.object({
    object: z.literal('session'),
    user: z.object({
      id,
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
    demo_model: z
      .boolean()
      .describe('Whether chats answer with the built-in demo model (no AI: the platform has no model configured)'),
    memberships: z
      .array(z.object({ tenant_id: id, tenant_name: z.string(), role: RoleSchema }))
      .describe('The active tenants the user may act in (send one as `X-Agentry-Tenant`)'),
    csrf_token: z.string().describe('Repeat as `X-CSRF-Token` on POST/PUT/PATCH/DELETE'),
  }),
  'The signed-in dashboard user; the session itself is the httpOnly `agentry_session` cookie',
);

export const MemberSchema = component(
  'Member',
  z.object({
    object: z.literal('member'),
    user_id: id,
    email: z.string(),
    name: z.string().nullable(),
    email_verified: z
      .boolean()
      .describe('Whether the member proved they read this address (false: joined through a link shown to an inviter)'),
    role: RoleSchema,
    created_at: timestamp,
  }),
);
export const MemberListSchema = component('MemberList', list(MemberSchema));

export const InvitationSchema = component(
  'Invitation',
  z.object({
    object: z.literal('invitation'),
    id,
    email: z.string(),
    role: RoleSchema,
    delivery: z
      .enum(['email', 'link'])
      .describe(
        '`email`: the link was mailed to the invitee; `link`: no mail is configured and the inviter was shown it',
      ),
    invited_by: id.nullable().describe('The inviting user; null when invited by the operator or an API key'),
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

export type Session = z.infer<typeof SessionSchema>;
/** A tenant the signed-in user may act in, with their role there. */
export type Membership = Session['memberships'][number];
export type Member = z.infer<typeof MemberSchema>;
export type MemberList = z.infer<typeof MemberListSchema>;
export type Invitation = z.infer<typeof InvitationSchema>;
/** The answer of `POST /v1/invitations` (with `delivery: link`, the token and link, shown once). */
export type InvitationCreated = z.infer<typeof InvitationCreatedSchema>;
export type InvitationList = z.infer<typeof InvitationListSchema>;
export type PasswordResetRequested = z.infer<typeof PasswordResetRequestedSchema>;

// ---- request bodies ------------------------------------------------------------------------

const token = z.string().min(1).max(200);
const password = z.string().min(1).max(PASSWORD_MAX_LENGTH);

/** `POST /v1/auth/login`. */
export const LoginBody = z.strictObject({ email: z.string().trim().min(1).max(320), password });
export type LoginBody = z.input<typeof LoginBody>;

/** `POST /v1/auth/accept-invitation`: a new account sets `password`, an existing one gives its own. */
export const AcceptInvitationBody = z.strictObject({
  token,
  password,
  name: z.string().trim().min(1).max(200).optional(),
});
export type AcceptInvitationBody = z.input<typeof AcceptInvitationBody>;

/** `POST /v1/auth/password-reset`. */
export const RequestPasswordResetBody = z.strictObject({ email: z.email().max(320) });
export type RequestPasswordResetBody = z.input<typeof RequestPasswordResetBody>;

/** `POST /v1/auth/password-reset/confirm`. */
export const ConfirmPasswordResetBody = z.strictObject({ token, password });
export type ConfirmPasswordResetBody = z.input<typeof ConfirmPasswordResetBody>;

/** `POST /v1/auth/confirm-email`. */
export const ConfirmEmailBody = z.strictObject({ token });
export type ConfirmEmailBody = z.input<typeof ConfirmEmailBody>;

/** `PATCH /v1/members/{userId}`. */
export const ChangeRoleBody = z.strictObject({ role: RoleSchema });
export type ChangeRoleBody = z.input<typeof ChangeRoleBody>;

/** `POST /v1/invitations`. */
export const NewInvitationBody = z.strictObject({ email: z.email().max(320), role: RoleSchema });
export type NewInvitationBody = z.input<typeof NewInvitationBody>;
