import type { ErrorCodeWithStatus } from '@agentry/contract';
import {
  type Db,
  findUserSession,
  getMembership,
  isId,
  touchUserSession,
  type User,
  type UserSession,
} from '@agentry/db';
import { type AppError, errors } from '@agentry/errors';
import type { Context } from 'hono';
import { assertCsrf } from './csrf.ts';
import { roleMayCall, scopesForRole } from './scopes.ts';
import { hashSessionToken, readSessionCookie } from './session-cookie.ts';

/** The header a dashboard request names the tenant it acts in with. */
export const TENANT_HEADER = 'x-agentry-tenant';

const TOUCH_INTERVAL_MS = 60_000;

/** The request's valid (unexpired, not signed-out) session and its user, if it carries one. */
export async function loadSession(db: Db, c: Context): Promise<{ session: UserSession; user: User } | undefined> {
  const token = readSessionCookie(c);
  return token ? findUserSession(db, hashSessionToken(token)) : undefined;
}

function denied(code: ErrorCodeWithStatus<403>, message: string): AppError {
  return errors.of({ code, message, category: 'user' });
}

/**
 * Authenticates a dashboard request by its session cookie; false when it carries none. The
 * session is global, so the tenant is chosen per request (`X-Agentry-Tenant`) and membership and
 * role are checked on every request: a cookie never carries one tenant's rights into another.
 * Unsafe methods must repeat the session's CSRF token. Sets `tenant` and a `user` principal.
 *
 * @example
 * const sessions = authenticateSession(db);
 * if (await sessions(c)) return next();
 */
export function authenticateSession(db: Db): (c: Context) => Promise<boolean> {
  const lastTouched = new Map<string, number>();
  return async (c) => {
    if (!readSessionCookie(c)) return false;
    const found = await loadSession(db, c);
    if (!found) throw errors.unauthorized('The session has expired or was signed out; sign in again');
    const { session, user } = found;
    assertCsrf(c, session.csrfToken);
    const tenantId = c.req.header(TENANT_HEADER);
    if (!tenantId || !isId(tenantId)) {
      throw denied('tenant_not_selected', 'Name the tenant to act in with the X-Agentry-Tenant header');
    }
    const membership = await getMembership(db, tenantId, user.id);
    if (!membership) throw denied('not_a_member', 'You are not a member of this tenant');
    if (membership.tenant.status !== 'active') throw denied('tenant_suspended', 'This tenant is suspended');
    const { method, path } = c.req;
    if (!roleMayCall(membership.role, method, path, user.id)) {
      throw denied('insufficient_role', `Your role (${membership.role}) may not ${method} ${path}`);
    }
    c.set('tenant', membership.tenant);
    c.set('principal', {
      keyId: `user:${user.id}`,
      kind: 'user',
      scopes: scopesForRole(membership.role),
      user: { id: user.id, email: user.email, sessionId: session.id, role: membership.role },
    });
    const now = Date.now();
    // Like API keys: last-seen once a minute is enough, and saves a write per request.
    if ((lastTouched.get(session.id) ?? 0) < now - TOUCH_INTERVAL_MS) {
      if (lastTouched.size > 10_000) lastTouched.clear();
      lastTouched.set(session.id, now);
      await touchUserSession(db, session.id, new Date(now));
    }
    return true;
  };
}
