import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NotFoundResource } from '@agentry/contract';
import { type Db, findActiveApiKey, type Tenant, touchApiKey } from '@agentry/db';
import { errors } from '@agentry/errors';
import type { VerifiedEndUser } from '@agentry/run-service';
import type { SecretBox } from '@agentry/secrets';
import type { MiddlewareHandler } from 'hono';
import type { ApiKeyCache } from './api-key-cache.ts';
import { verifyEndUser } from './end-user.ts';
import { requestOrigin } from './request-origin.ts';
import { hasScope, originAllowed, publishableMayCall, scopeFor } from './scopes.ts';
import { authenticateSession } from './session-auth.ts';

/** Who is calling: the key's (or signed-in user's) tenant, kind and grants. */
export interface Principal {
  /** The API key's id; for a dashboard user `user:<user id>` (rate limits count per caller). */
  keyId: string;
  /** `user`: a dashboard user signed in with a session cookie, acting in the tenant it selected. */
  kind: 'secret' | 'publishable' | 'user';
  /** A user's scopes follow from its role in the tenant. */
  scopes: string[];
  /** Dashboard users: who, with which session and role. */
  user?: { id: string; email: string; sessionId: string; role: 'owner' | 'editor' | 'viewer' };
  /** Publishable keys: the agents they may chat with. */
  allowedAgents?: string[];
  /** The end user a verified `X-End-User-Token` vouches for. */
  endUserId?: string;
  /**
   * The verified token's claims and the token itself, for the agent's tools only (`{{user.…}}`,
   * sealed on the run). Not enumerable: a principal logged or spread never carries it.
   */
  readonly endUser?: VerifiedEndUser;
}

export interface AuthVariables {
  tenant: Tenant;
  /** Set for API keys only (dashboard users have `principal.user`). */
  apiKeyId?: string;
  principal: Principal;
}

/** A new key: `sk_` (secret) or `pk_` (publishable) + 256 random bits. Only its SHA-256 is stored. */
export function generateKey(kind: 'secret' | 'publishable' = 'secret'): { key: string; prefix: string; hash: string } {
  const key = `${kind === 'secret' ? 'sk' : 'pk'}_${randomBytes(32).toString('base64url')}`;
  return { key, prefix: key.slice(0, 11), hash: hashKey(key) };
}

/** A new secret key (the first key of a tenant). */
export function generateSecretKey(): { key: string; prefix: string; hash: string } {
  return generateKey('secret');
}

/**
 * Publishable keys chat only with their own agents: anything else looks like it does not exist.
 *
 * @example
 * assertAgentAllowed(c.var.principal, conversation.agentId, 'conversation', conversation.id);
 */
export function assertAgentAllowed(
  principal: Principal,
  agentId: string,
  resource: NotFoundResource,
  id: string,
): void {
  if (principal.kind === 'publishable' && !principal.allowedAgents?.includes(agentId)) {
    throw errors.notFound(resource, id);
  }
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function bearer(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

const TOUCH_INTERVAL_MS = 60_000;

/**
 * Requires a valid, unrevoked tenant key and checks what it may do: a secret key needs the route's
 * scope; a publishable key may only chat, only from its allowed origins. Sets `tenant` and
 * `principal` on the context. Without an `Authorization` header, a dashboard session cookie is
 * accepted instead (see `authenticateSession`: tenant from `X-Agentry-Tenant`, role, CSRF).
 * With `options.cache`, keys are looked up through it (no database transaction when cached).
 *
 * @example
 * tenantScoped.use('*', requireTenantKey(deps.db, deps.secretBox, { cache: deps.apiKeyCache }));
 */
export function requireTenantKey(
  db: Db,
  secretBox?: SecretBox,
  options: { cache?: ApiKeyCache | undefined } = {},
): MiddlewareHandler<{ Variables: AuthVariables }> {
  const lastTouched = new Map<string, number>();
  const sessions = authenticateSession(db);
  const { cache } = options;
  const findKey = cache ? (hash: string) => cache.find(hash) : (hash: string) => findActiveApiKey(db, hash);
  return async (c, next) => {
    const key = bearer(c.req.header('authorization'));
    if (!key && c.req.header('authorization') === undefined && (await sessions(c))) return next();
    if (!key) throw errors.unauthorized('Send your API key as `Authorization: Bearer sk_…`');
    const found = await findKey(hashKey(key));
    if (!found) throw errors.unauthorized('The API key is not valid, or it was revoked');
    const { method, path } = c.req;
    if (found.key.kind === 'publishable') {
      const origin = requestOrigin(c);
      if (!origin || !originAllowed(origin, found.key.allowedOrigins ?? [])) {
        throw errors.of({
          code: 'origin_not_allowed',
          message: `This publishable key may not be used from ${origin ?? 'a request without an Origin'}; add the page's origin to the key's allowed origins`,
          category: 'user',
        });
      }
      if (!publishableMayCall(method, path)) throw errors.forbidden('A publishable key can only be used to chat');
    } else if (!hasScope(found.key.scopes, scopeFor(method, path))) {
      throw errors.of({
        code: 'insufficient_scope',
        message: `This key lacks the \`${scopeFor(method, path)}\` scope`,
        category: 'user',
      });
    }
    c.set('tenant', found.tenant);
    c.set('apiKeyId', found.key.id);
    const endUserToken = c.req.header('x-end-user-token');
    const endUser = endUserToken ? await verifyEndUser(db, secretBox, found.tenant.id, endUserToken) : undefined;
    const principal: Principal = {
      keyId: found.key.id,
      kind: found.key.kind,
      scopes: found.key.scopes,
      ...(found.key.allowedAgents ? { allowedAgents: found.key.allowedAgents } : {}),
      ...(endUser ? { endUserId: endUser.sub } : {}),
    };
    if (endUser) Object.defineProperty(principal, 'endUser', { value: endUser, enumerable: false });
    c.set('principal', principal);
    const now = Date.now();
    // Writing last-used on every request would add a write to every read; once a minute is enough.
    if ((lastTouched.get(found.key.id) ?? 0) < now - TOUCH_INTERVAL_MS) {
      lastTouched.set(found.key.id, now);
      await touchApiKey(db, found.tenant.id, found.key.id, new Date(now));
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

/**
 * Conversations of a verified end user are theirs alone: a visitor request must carry the same
 * identity (secret keys, used by the tenant's own servers, see all).
 */
export function assertEndUserAllowed(principal: Principal, context: Record<string, unknown>, id: string): void {
  if (principal.kind !== 'publishable') return;
  const owner = context.userId;
  if (owner !== undefined && owner !== principal.endUserId) throw errors.notFound('conversation', id);
}
