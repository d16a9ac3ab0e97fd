import type { ErrorCodeWithStatus } from '@agentry/contract';
import { type AppError, errors } from '@agentry/errors';
import type { Context, MiddlewareHandler } from 'hono';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { AuthVariables } from './auth.ts';
import { clientIp } from './client-ip.ts';

export interface RateLimitOptions {
  /** Requests per minute per tenant (a tenant's own setting wins) and per key. */
  perMinute: number;
  /**
   * Requests per minute per end user: the user a verified `X-End-User-Token` names, or, for an
   * anonymous visitor of a publishable key, that key and the client's IP address. Unset: no limit.
   */
  perEndUserPerMinute?: number;
  /**
   * Proxies in front of the API that append the client address to `X-Forwarded-For` (0: the
   * socket's peer is the client). Only their entries are trusted; anything further left is the
   * client's own claim.
   */
  trustedProxies?: number;
  /** Shared counters across API processes; memory when absent (embedded mode). */
  redis?: Redis;
  prefix?: string;
}

/**
 * Rate limits per end user, per tenant and per key (a fixed one-minute window), answering 429 with
 * Retry-After (`end_user_rate_limited` or `rate_limited`). The end user is counted first, so one
 * busy visitor is stopped before it uses up its tenant's and key's allowance. Counters live in
 * Redis so every API process shares them; every mount with the same `options` object shares them
 * in memory too.
 */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler<{ Variables: AuthVariables }> {
  const { tenantLimiter, keyLimiter, endUserLimiter } = limitersFor(options);
  return async (c, next) => {
    const endUser = options.perEndUserPerMinute ? endUserKey(c, options.trustedProxies ?? 0) : undefined;
    if (endUser) await consume(endUserLimiter, endUser, options.perEndUserPerMinute!, 'end user', END_USER_CODE);
    const tenantLimit = c.var.tenant.requestsPerMinute ?? options.perMinute;
    // Both counters at once (one Redis round trip); a refusal by the tenant's is reported first.
    const [tenant, key] = await Promise.allSettled([
      consume(tenantLimiter, c.var.tenant.id, tenantLimit, 'tenant'),
      consume(keyLimiter, c.var.principal.keyId, options.perMinute, 'key'),
    ]);
    if (tenant.status === 'rejected') throw tenant.reason;
    if (key.status === 'rejected') throw key.reason;
    await next();
  };
}

type Limiter = RateLimiterMemory | RateLimiterRedis;
interface Limiters {
  tenantLimiter: Limiter;
  keyLimiter: Limiter;
  endUserLimiter: Limiter;
}

// One set of counters per options object: the tenant-scoped routes and the OpenAI-compatible ones
// each mount the middleware, and separate memory counters would give a caller both allowances.
const limiterSets = new WeakMap<RateLimitOptions, Limiters>();

function limitersFor(options: RateLimitOptions): Limiters {
  let limiters = limiterSets.get(options);
  if (!limiters) {
    limiters = makeLimiters(options);
    limiterSets.set(options, limiters);
  }
  return limiters;
}

function makeLimiters(options: RateLimitOptions): Limiters {
  const make = (keyPrefix: string) => {
    const memory = new RateLimiterMemory({ keyPrefix, points: 1, duration: 60 });
    // While Redis is unreachable each process counts on its own instead of failing the request.
    return options.redis
      ? new RateLimiterRedis({
          storeClient: options.redis,
          keyPrefix: `${options.prefix ?? 'agentry'}:rl:${keyPrefix}`,
          points: 1,
          duration: 60,
          customIncrTtlLuaScript: INCR_TTL_SCRIPT,
          insuranceLimiter: memory,
        })
      : memory;
  };
  return { tenantLimiter: make('tenant'), keyLimiter: make('key'), endUserLimiter: make('end-user') };
}

/**
 * The library's counting script without its leading `SET … NX` (issue 23: every request counts a
 * tenant and a key): the counter gets its expiry when INCRBY creates it, in the same atomic script,
 * so a window costs INCRBY + PTTL per request, and an EXPIRE once. Same reply: { consumed, ttl ms }.
 */
const INCR_TTL_SCRIPT = `local consumed = redis.call('incrby', KEYS[1], ARGV[1])
local ttl = redis.call('pttl', KEYS[1])
if ttl == -1 then
  redis.call('expire', KEYS[1], ARGV[2])
  ttl = 1000 * ARGV[2]
end
return { consumed, ttl }`;

const END_USER_CODE = 'end_user_rate_limited';

/**
 * Resolves true once the limiter's Redis connection is ready, false after `timeoutMs`. Wait for it
 * before serving: the client has no offline queue, so a request counted while it still connects
 * goes to the per-process fallback counter, which the shared one never sees (a burst at start-up
 * was admitted past its limit that way).
 *
 * @example
 * if (!(await limiterReady(redis, 10_000))) logger.warn('rate limits count per process for now');
 */
export function limiterReady(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.on('ready', onReady);
  });
}

/**
 * Whom the per-end-user limit counts: a verified end user (per tenant), else an anonymous visitor
 * of a publishable key (per key and client IP); none for the tenant's own servers and users.
 * The per-visitor stream cap (stream-slots.ts) counts the same visitors.
 */
export function endUserKey(c: Context<{ Variables: AuthVariables }>, trustedProxies: number): string | undefined {
  const { principal, tenant } = c.var;
  if (principal.endUserId !== undefined) return `${tenant.id}:user:${principal.endUserId}`;
  if (principal.kind === 'publishable') return `${principal.keyId}:ip:${clientIp(c, trustedProxies)}`;
  return undefined;
}

async function consume(
  limiter: Limiter,
  key: string,
  limit: number,
  scope: string,
  code: ErrorCodeWithStatus<429> = 'rate_limited',
): Promise<void> {
  try {
    // One counter per key; the limit is checked here so a tenant's own setting applies immediately.
    const res = await limiter.penalty(key, 1);
    if (res.consumedPoints > limit) throw tooMany(scope, res.msBeforeNext, code);
  } catch (error) {
    if (error instanceof RateLimiterRes) throw tooMany(scope, error.msBeforeNext, code);
    throw error;
  }
}

function tooMany(scope: string, msBeforeNext: number, code: ErrorCodeWithStatus<429>): AppError {
  return errors.of({
    code,
    message: `Too many requests for this ${scope}; slow down`,
    category: 'user',
    retryable: true,
    retryAfterMs: Math.max(1000, msBeforeNext),
  });
}
