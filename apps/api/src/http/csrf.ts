import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { type AppError, errors } from '@agentry/errors';
import type { Context } from 'hono';

/** The header a cookie-authenticated unsafe request repeats its session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function newCsrfToken(): string {
  return randomBytes(32).toString('base64url');
}

export function csrfFailed(message: string): AppError {
  return errors.of({ code: 'csrf_failed', message, category: 'user' });
}

/**
 * Requires `X-CSRF-Token` to equal the session's token on unsafe methods. Another site can make a
 * browser send the cookie, but cannot read the token to repeat it. Compared in constant time
 * (both sides hashed first, so lengths never differ).
 *
 * @example
 * assertCsrf(c, session.csrfToken);
 */
export function assertCsrf(c: Context, expected: string): void {
  if (SAFE_METHODS.has(c.req.method)) return;
  const given = c.req.header(CSRF_HEADER);
  if (!given) throw csrfFailed('Send the session’s csrf_token in the X-CSRF-Token header');
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  if (!timingSafeEqual(a, b)) throw csrfFailed('The X-CSRF-Token header does not match the session');
}

/**
 * Refuses requests a browser marks as coming from another site (`Sec-Fetch-Site: cross-site`):
 * logging in or accepting an invitation must not be triggered by a foreign page ("login CSRF").
 * Clients that are not browsers send no such header and are unaffected.
 */
export function assertNotCrossSite(c: Context): void {
  if (c.req.header('sec-fetch-site') === 'cross-site') {
    throw csrfFailed('This request came from another site; sign in from the dashboard');
  }
}
