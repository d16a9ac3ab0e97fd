import { AcceptInvitationBody, LoginBody } from '@agentry/contract/schemas';
import {
  acceptInvitation,
  createUserSession,
  type Db,
  deleteUserSession,
  findInvitationByToken,
  findUserByEmail,
  listUserMemberships,
  recordAuditEvent,
  type User,
} from '@agentry/db';
import { type AppError, errors } from '@agentry/errors';
import { usesDemoModel } from '@agentry/models';
import { type Context, Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { readJson } from '../http/body.ts';
import { clientIp } from '../http/client-ip.ts';
import { assertCsrf, assertNotCrossSite, newCsrfToken } from '../http/csrf.ts';
import { hashInvitationToken } from '../http/invitation-token.ts';
import { createLoginThrottle, type LoginThrottleOptions } from '../http/login-throttle.ts';
import { doc, ref } from '../http/openapi.ts';
import { assertNewPassword, hashPassword, verifyDummyPassword, verifyPassword } from '../http/password.ts';
import { loadSession } from '../http/session-auth.ts';
import { clearSessionCookie, newSessionToken, SESSION_TTL_MS, setSessionCookie } from '../http/session-cookie.ts';

/** 401 `invalid_credentials`, the same for a wrong password and an unknown email. */
function invalidCredentials(): AppError {
  return errors.of({
    code: 'invalid_credentials',
    message: 'The email or password is not correct',
    category: 'user',
  });
}

function invitationNotFound(): AppError {
  return errors.notFound('invitation');
}

/**
 * The public shape of a session: who is signed in, the tenants they may pick, and the CSRF token
 * the page repeats in `X-CSRF-Token` on unsafe requests. Never the cookie token or a password.
 */
/** What the dashboard shows about the platform itself: whether mail goes out, whether the demo model answers. */
export function platformFlags(deps: Pick<ApiDeps, 'mail' | 'models'>): { mailEnabled: boolean; demoModel: boolean } {
  return { mailEnabled: deps.mail !== undefined, demoModel: usesDemoModel(deps.models) };
}

export async function sessionView(
  db: Db,
  user: User,
  csrfToken: string,
  { mailEnabled, demoModel }: { mailEnabled: boolean; demoModel: boolean },
) {
  const memberships = await listUserMemberships(db, user.id);
  return {
    object: 'session',
    user: { id: user.id, email: user.email, name: user.name, email_verified: user.emailVerifiedAt !== null },
    mail_enabled: mailEnabled,
    demo_model: demoModel,
    memberships: memberships.map((m) => ({ tenant_id: m.tenantId, tenant_name: m.tenantName, role: m.role })),
    csrf_token: csrfToken,
  };
}

/**
 * Starts a session for `user`: a new random token (the id rotates at every login; a session the
 * request still carried is ended), only its hash stored, set as the httpOnly cookie.
 */
export async function openSession(db: Db, c: Context, user: User) {
  const previous = await loadSession(db, c);
  if (previous) await deleteUserSession(db, previous.session.id);
  const { token, hash } = newSessionToken();
  const session = await createUserSession(db, {
    userId: user.id,
    tokenHash: hash,
    csrfToken: newCsrfToken(),
    expiresAt: new Date(Date.now() + SESSION_TTL_MS),
  });
  setSessionCookie(c, token);
  return session;
}

export interface AuthRouteOptions {
  /** Overrides of the brute-force limits (tests). */
  throttle?: Omit<LoginThrottleOptions, 'redis' | 'prefix'>;
}

/**
 * Dashboard sign-in: `POST /login`, `GET /session`, `POST /logout`, `POST /accept-invitation`.
 * Passwords are argon2id hashes; unknown emails take as long and answer the same as wrong
 * passwords; failures are throttled per email+IP and per IP.
 */
export function authRoutes(deps: ApiDeps, options: AuthRouteOptions = {}) {
  const app = new Hono();
  const throttle = createLoginThrottle({
    ...options.throttle,
    ...(deps.rateLimit.redis ? { redis: deps.rateLimit.redis } : {}),
    ...(deps.rateLimit.prefix ? { prefix: deps.rateLimit.prefix } : {}),
  });

  app.post(
    '/login',
    doc({
      operationId: 'login',
      tag: 'Dashboard accounts',
      summary: 'Sign in with email and password',
      description:
        'Sets the `agentry_session` cookie (a new session id at every login). A wrong password and an unknown email answer alike; repeated failures per email and address answer 429 `login_throttled`.',
      auth: 'public',
      body: { schema: LoginBody, example: { email: 'ada@example.com', password: 'correct horse battery staple' } },
      responses: {
        200: {
          description: 'Signed in',
          schema: ref('Session'),
          headers: {
            'Set-Cookie': 'agentry_session=…; HttpOnly; SameSite=Lax; Path=/; Max-Age=604800 (+ Secure over https)',
          },
        },
      },
      errors: ['invalid_credentials', 'login_throttled', 'csrf_failed', 'internal_error'],
    }),
    async (c) => {
      assertNotCrossSite(c);
      const body = await readJson(c, LoginBody);
      const ip = clientIp(c, deps.rateLimit.trustedProxies ?? 0);
      await throttle.attempt(body.email, ip);
      const user = await findUserByEmail(deps.db, body.email);
      let ok = false;
      if (user) ok = await verifyPassword(user.passwordHash, body.password);
      else await verifyDummyPassword(body.password);
      if (!user || !ok) throw invalidCredentials();
      await throttle.succeeded(body.email, ip);
      const session = await openSession(deps.db, c, user);
      const view = await sessionView(deps.db, user, session.csrfToken, platformFlags(deps));
      for (const m of view.memberships) {
        await recordAuditEvent(deps.db, {
          tenantId: m.tenant_id,
          actor: { type: 'user', userId: user.id, email: user.email },
          action: 'user.login',
          target: { type: 'user', id: user.id },
        });
      }
      return c.json(view);
    },
  );

  app.get(
    '/session',
    doc({
      operationId: 'getSession',
      tag: 'Dashboard accounts',
      summary: 'The signed-in user, their tenants and the CSRF token',
      description: 'Needs the `agentry_session` cookie.',
      auth: 'session',
      responses: { 200: { description: 'The session', schema: ref('Session') } },
      errors: ['unauthorized', 'internal_error'],
    }),
    async (c) => {
      const found = await loadSession(deps.db, c);
      if (!found) throw errors.unauthorized('Not signed in, or the session has expired');
      return c.json(await sessionView(deps.db, found.user, found.session.csrfToken, platformFlags(deps)));
    },
  );

  app.post(
    '/logout',
    doc({
      operationId: 'logout',
      tag: 'Dashboard accounts',
      summary: 'Sign out: the session ends on the server and the cookie is cleared',
      description: 'Needs the `agentry_session` cookie and `X-CSRF-Token`.',
      auth: 'session',
      responses: { 204: { description: 'Signed out' } },
      errors: ['unauthorized', 'csrf_failed', 'internal_error'],
    }),
    async (c) => {
      const found = await loadSession(deps.db, c);
      if (!found) {
        clearSessionCookie(c);
        throw errors.unauthorized('Not signed in, or the session has expired');
      }
      assertCsrf(c, found.session.csrfToken);
      await deleteUserSession(deps.db, found.session.id);
      clearSessionCookie(c);
      return c.body(null, 204);
    },
  );

  app.post(
    '/accept-invitation',
    doc({
      operationId: 'acceptInvitation',
      tag: 'Dashboard accounts',
      summary: 'Join a tenant with an invitation token, and sign in',
      description:
        'A new email creates the account with `password` (at least 10 characters): verified when the invitation was mailed, unverified when its link was shown to the inviter. An existing account must give its current password (no second password is ever set).',
      auth: 'public',
      body: {
        schema: AcceptInvitationBody,
        example: { token: 'inv_…', password: 'correct horse battery staple', name: 'Ada Lovelace' },
      },
      responses: {
        200: {
          description: 'Joined and signed in',
          schema: ref('Session'),
          headers: {
            'Set-Cookie': 'agentry_session=…; HttpOnly; SameSite=Lax; Path=/; Max-Age=604800 (+ Secure over https)',
          },
        },
      },
      errors: [
        'invitation_not_found',
        'invitation_expired',
        'invalid_credentials',
        'login_throttled',
        'user_exists',
        'csrf_failed',
        'internal_error',
      ],
    }),
    async (c) => {
      assertNotCrossSite(c);
      const body = await readJson(c, AcceptInvitationBody);
      const found = await findInvitationByToken(deps.db, hashInvitationToken(body.token));
      if (!found || found.invitation.acceptedAt || found.invitation.revokedAt) throw invitationNotFound();
      const { invitation } = found;
      if (invitation.expiresAt.getTime() <= Date.now()) {
        throw errors.of({
          code: 'invitation_expired',
          message: 'This invitation has expired; ask for a new one',
          category: 'user',
        });
      }
      const existing = await findUserByEmail(deps.db, invitation.email);
      let result: Awaited<ReturnType<typeof acceptInvitation>>;
      if (existing) {
        // The invited email has an account: joining takes its current password (throttled like logins).
        const ip = clientIp(c, deps.rateLimit.trustedProxies ?? 0);
        await throttle.attempt(existing.email, ip);
        if (!(await verifyPassword(existing.passwordHash, body.password))) throw invalidCredentials();
        await throttle.succeeded(existing.email, ip);
        result = await acceptInvitation(deps.db, invitation, { existingUser: existing });
      } else {
        assertNewPassword(body.password);
        const passwordHash = await hashPassword(body.password);
        result = await acceptInvitation(deps.db, invitation, {
          newUser: { name: body.name ?? null, passwordHash },
        });
      }
      if (result.status === 'gone') throw invitationNotFound();
      if (result.status === 'email_taken') {
        throw errors.conflict('user_exists', 'An account with this email was just created; accept with its password');
      }
      const { user } = result;
      await recordAuditEvent(deps.db, {
        tenantId: invitation.tenantId,
        actor: { type: 'user', userId: user.id, email: user.email },
        action: 'member.joined',
        target: { type: 'user', id: user.id },
        details: { role: invitation.role, invitation_id: invitation.id, new_account: result.created },
      });
      const session = await openSession(deps.db, c, user);
      return c.json(await sessionView(deps.db, user, session.csrfToken, platformFlags(deps)));
    },
  );
  return app;
}
