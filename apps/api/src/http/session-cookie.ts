import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';

/** The dashboard session cookie. */
export const SESSION_COOKIE = 'agentry_session';
/** Sessions last 7 days from login (the cookie's Max-Age and the row's expiry alike). */
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** A new opaque session token (256 random bits) and the SHA-256 stored in its place. */
export function newSessionToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashSessionToken(token) };
}

export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The session token the request carries, if any. */
export function readSessionCookie(c: Context): string | undefined {
  const value = getCookie(c, SESSION_COOKIE);
  return value && /^[A-Za-z0-9_-]{16,128}$/.test(value) ? value : undefined;
}

/**
 * Whether the browser reached us over https: the URL itself, or the proxy's `X-Forwarded-Proto`
 * (the header only ever adds `Secure`, which cannot weaken the cookie).
 */
function isHttps(c: Context): boolean {
  const forwarded = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return forwarded === 'https' || new URL(c.req.url).protocol === 'https:';
}

/**
 * Sets the session cookie: HttpOnly (scripts cannot read it), SameSite=Lax (not sent on
 * cross-site POSTs), Path=/, Max-Age 7 days, Secure over https.
 *
 * @example
 * setSessionCookie(c, token);
 */
export function setSessionCookie(c: Context, token: string): void {
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'Lax',
    path: '/',
    maxAge: SESSION_TTL_MS / 1000,
    secure: isHttps(c),
  });
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'Lax', secure: isHttps(c) });
}
