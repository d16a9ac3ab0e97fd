import { ConfirmEmailBody, ConfirmPasswordResetBody, RequestPasswordResetBody } from '@agentry/contract/schemas';
import {
  type AccountToken,
  type AccountTokenPurpose,
  createAccountToken,
  type Db,
  findAccountToken,
  findUserByEmail,
  listUserMemberships,
  recordAuditEvent,
  redeemAccountToken,
  type User,
} from '@agentry/db';
import { errors } from '@agentry/errors';
import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import {
  EMAIL_CONFIRMATION_TTL_MS,
  hashAccountToken,
  newAccountToken,
  PASSWORD_RESET_TTL_MS,
} from '../http/account-token.ts';
import { readJson } from '../http/body.ts';
import { clientIp } from '../http/client-ip.ts';
import { assertCsrf, assertNotCrossSite } from '../http/csrf.ts';
import { mailFailed, mailNotConfigured } from '../http/invitation-delivery.ts';
import { doc, ref } from '../http/openapi.ts';
import { assertNewPassword, hashPassword } from '../http/password.ts';
import { createPasswordResetThrottle, type PasswordResetThrottleOptions } from '../http/password-reset-throttle.ts';
import { loadSession } from '../http/session-auth.ts';
import { dashboardLink, emailConfirmationMail, passwordResetMail } from '../mail/account-mails.ts';
import type { AccountMail } from '../mail/mailer.ts';
import { openSession, platformFlags, sessionView } from './auth.ts';

export interface AccountEmailRouteOptions {
  /** Overrides of the reset request limits (tests). */
  throttle?: Omit<PasswordResetThrottleOptions, 'redis' | 'prefix'>;
}

/** Records `action` in the audit log of every tenant the user belongs to (users are global). */
async function auditUser(db: Db, user: User, action: string, details: Record<string, unknown> = {}) {
  for (const m of await listUserMemberships(db, user.id)) {
    await recordAuditEvent(db, {
      tenantId: m.tenantId,
      actor: { type: 'user', userId: user.id, email: user.email },
      action,
      target: { type: 'user', id: user.id },
      details,
    });
  }
}

/** The mail settings, or 503 `mail_not_configured`: these routes cannot work without SMTP. */
function requireMail(deps: ApiDeps): AccountMail {
  if (!deps.mail) throw mailNotConfigured();
  return deps.mail;
}

/** The unused, unexpired token with this value, or the route's 404 / 410. */
async function usableToken(db: Db, purpose: AccountTokenPurpose, value: string): Promise<AccountToken> {
  const found = await findAccountToken(db, purpose, hashAccountToken(value));
  if (!found || found.token.usedAt) throw errors.notFound(purpose);
  if (found.token.expiresAt.getTime() <= Date.now()) {
    throw errors.of({
      code: `${purpose}_expired`,
      message: 'This link has expired; ask for a new one',
      category: 'user',
    });
  }
  return found.token;
}

/**
 * Mails a password reset link when `email` has an account; nothing otherwise. Runs after the
 * answer, so how long it takes (a lookup, a write, an SMTP round trip) tells nobody whether the
 * account exists.
 */
async function mailPasswordReset(db: Db, mail: AccountMail, email: string): Promise<void> {
  const user = await findUserByEmail(db, email);
  if (!user) return;
  const { token, hash } = newAccountToken('pwr');
  await createAccountToken(db, {
    user,
    purpose: 'password_reset',
    tokenHash: hash,
    expiresAt: new Date(Date.now() + PASSWORD_RESET_TTL_MS),
  });
  const link = dashboardLink(mail.publicUrl, 'reset-password', token);
  await mail.mailer.send(passwordResetMail({ to: user.email, link, minutes: PASSWORD_RESET_TTL_MS / 60_000 }));
  await auditUser(db, user, 'user.password_reset_requested');
}

/**
 * Proving the mailbox: `POST /password-reset` {email} (always 202, mailed only to an existing
 * account), `POST /password-reset/confirm` {token, password} (sets it, ends every other session,
 * signs in), `POST /email-confirmation` (signed in: mails a confirmation link) and
 * `POST /confirm-email` {token}. Tokens are single-use and stored as SHA-256 only.
 */
export function accountEmailRoutes(deps: ApiDeps, options: AccountEmailRouteOptions = {}) {
  const app = new Hono();
  const throttle = createPasswordResetThrottle({
    ...options.throttle,
    ...(deps.rateLimit.redis ? { redis: deps.rateLimit.redis } : {}),
    ...(deps.rateLimit.prefix ? { prefix: deps.rateLimit.prefix } : {}),
  });

  app.post(
    '/password-reset',
    doc({
      operationId: 'requestPasswordReset',
      tag: 'Dashboard accounts',
      summary: 'Mail a password reset link (always 202: whether the email has an account is never told)',
      description:
        'When the email has an account, a link valid for 30 minutes, once, is mailed to it. The answer does not wait for that, so known and unknown emails answer alike and as fast. Requests are limited per email and per client address, known or not (429 `password_reset_throttled`).',
      auth: 'public',
      body: { schema: RequestPasswordResetBody, example: { email: 'ada@example.com' } },
      responses: { 202: { description: 'Accepted', schema: ref('PasswordResetRequested') } },
      errors: ['password_reset_throttled', 'mail_not_configured', 'csrf_failed', 'internal_error'],
    }),
    async (c) => {
      assertNotCrossSite(c);
      const body = await readJson(c, RequestPasswordResetBody);
      const mail = requireMail(deps);
      await throttle.attempt(body.email, clientIp(c, deps.rateLimit.trustedProxies ?? 0));
      mailPasswordReset(deps.db, mail, body.email).catch((error: unknown) =>
        deps.logger.warn({ err: error }, 'password reset mail not sent'),
      );
      return c.json(
        {
          object: 'password_reset_request',
          note: 'If an account has this email, a link to reset its password is on its way (valid 30 minutes).',
        },
        202,
      );
    },
  );

  app.post(
    '/password-reset/confirm',
    doc({
      operationId: 'confirmPasswordReset',
      tag: 'Dashboard accounts',
      summary: 'Set a new password with a mailed reset token, end every other session, and sign in',
      description:
        'The password follows the sign-up rules (at least 10 characters). The token works once; it also confirms the email.',
      auth: 'public',
      body: { schema: ConfirmPasswordResetBody, example: { token: 'pwr_…', password: 'correct horse battery staple' } },
      responses: {
        200: {
          description: 'Password set and signed in',
          schema: ref('Session'),
          headers: {
            'Set-Cookie': 'agentry_session=…; HttpOnly; SameSite=Lax; Path=/; Max-Age=604800 (+ Secure over https)',
          },
        },
      },
      errors: ['password_reset_not_found', 'password_reset_expired', 'csrf_failed', 'internal_error'],
    }),
    async (c) => {
      assertNotCrossSite(c);
      const body = await readJson(c, ConfirmPasswordResetBody);
      assertNewPassword(body.password);
      const token = await usableToken(deps.db, 'password_reset', body.token);
      const result = await redeemAccountToken(deps.db, token, { passwordHash: await hashPassword(body.password) });
      if (result.status === 'gone') throw errors.notFound('password_reset');
      await auditUser(deps.db, result.user, 'user.password_reset');
      const session = await openSession(deps.db, c, result.user);
      return c.json(await sessionView(deps.db, result.user, session.csrfToken, platformFlags(deps)));
    },
  );

  app.post(
    '/email-confirmation',
    doc({
      operationId: 'requestEmailConfirmation',
      tag: 'Dashboard accounts',
      summary: 'Mail the signed-in user a link that confirms their address',
      description: 'Needs the `agentry_session` cookie and `X-CSRF-Token`. Limited like password resets.',
      auth: 'session',
      responses: { 202: { description: 'Sent' } },
      errors: [
        'unauthorized',
        'csrf_failed',
        'email_already_verified',
        'password_reset_throttled',
        'mail_not_configured',
        'mail_failed',
        'internal_error',
      ],
    }),
    async (c) => {
      const found = await loadSession(deps.db, c);
      if (!found) throw errors.unauthorized('Not signed in, or the session has expired');
      assertCsrf(c, found.session.csrfToken);
      const { user } = found;
      if (user.emailVerifiedAt) throw errors.conflict('email_already_verified', 'This address is already confirmed');
      const mail = requireMail(deps);
      await throttle.attempt(user.email, clientIp(c, deps.rateLimit.trustedProxies ?? 0));
      const { token, hash } = newAccountToken('vfy');
      await createAccountToken(deps.db, {
        user,
        purpose: 'email_confirmation',
        tokenHash: hash,
        expiresAt: new Date(Date.now() + EMAIL_CONFIRMATION_TTL_MS),
      });
      const link = dashboardLink(mail.publicUrl, 'confirm-email', token);
      await mail.mailer.send(emailConfirmationMail({ to: user.email, link })).catch((error: unknown) => {
        throw mailFailed(error);
      });
      return c.body(null, 202);
    },
  );

  app.post(
    '/confirm-email',
    doc({
      operationId: 'confirmEmail',
      tag: 'Dashboard accounts',
      summary: 'Confirm an address with the mailed token',
      auth: 'public',
      body: { schema: ConfirmEmailBody, example: { token: 'vfy_…' } },
      responses: { 204: { description: 'Confirmed' } },
      errors: ['email_confirmation_not_found', 'email_confirmation_expired', 'csrf_failed', 'internal_error'],
    }),
    async (c) => {
      assertNotCrossSite(c);
      const body = await readJson(c, ConfirmEmailBody);
      const token = await usableToken(deps.db, 'email_confirmation', body.token);
      const result = await redeemAccountToken(deps.db, token);
      if (result.status === 'gone') throw errors.notFound('email_confirmation');
      await auditUser(deps.db, result.user, 'user.email_confirmed');
      return c.body(null, 204);
    },
  );
  return app;
}
