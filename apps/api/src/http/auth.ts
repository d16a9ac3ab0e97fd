import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { type Db, findActiveApiKey, type Tenant, touchApiKey } from '@agentry/db';
import { errors } from '@agentry/errors';
import type { MiddlewareHandler } from 'hono';

export interface AuthVariables {
  tenant: Tenant;
  apiKeyId: string;
}

/** A new secret key: `sk_` + 256 random bits. Only its SHA-256 is stored. */
export function generateSecretKey(): { key: string; prefix: string; hash: string } {
  const key = `sk_${randomBytes(32).toString('base64url')}`;
  return { key, prefix: key.slice(0, 11), hash: hashKey(key) };
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function bearer(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

const TOUCH_INTERVAL_MS = 60_000;

/** Requires a valid, unrevoked tenant key; sets `tenant` on the context. */
export function requireTenantKey(db: Db): MiddlewareHandler<{ Variables: AuthVariables }> {
  const lastTouched = new Map<string, number>();
  return async (c, next) => {
    const key = bearer(c.req.header('authorization'));
    if (!key) throw errors.unauthorized('Send your API key as `Authorization: Bearer sk_…`');
    const found = await findActiveApiKey(db, hashKey(key));
    if (!found) throw errors.unauthorized('The API key is not valid, or it was revoked');
    c.set('tenant', found.tenant);
    c.set('apiKeyId', found.key.id);
    const now = Date.now();
    // Writing last-used on every request would add a write to every read; once a minute is enough.
    if ((lastTouched.get(found.key.id) ?? 0) < now - TOUCH_INTERVAL_MS) {
      lastTouched.set(found.key.id, now);
      await touchApiKey(db, found.key.id, new Date(now));
    }
    await next();
  };
}

/** Requires the platform operator token (`PLATFORM_ADMIN_TOKEN`); the route is off without one. */
export function requirePlatformAdmin(token: string | undefined): MiddlewareHandler {
  const expected = token ? createHash('sha256').update(token).digest() : undefined;
  return async (c, next) => {
    if (!expected) {
      throw errors.forbidden('Tenant administration is disabled: PLATFORM_ADMIN_TOKEN is not set');
    }
    const given = bearer(c.req.header('authorization'));
    if (!given) throw errors.unauthorized('Send the platform admin token as `Authorization: Bearer …`');
    const actual = createHash('sha256').update(given).digest();
    if (!timingSafeEqual(actual, expected)) throw errors.unauthorized('The platform admin token is not valid');
    await next();
  };
}
