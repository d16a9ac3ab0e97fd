import { type Db, type Tenant, tenantUsageSince } from '@agentry/db';
import { AppError } from '@agentry/errors';
import type { MiddlewareHandler } from 'hono';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { AuthVariables } from './auth.ts';

export interface RateLimitOptions {
  /** Requests per minute per tenant (a tenant's own setting wins) and per key. */
  perMinute: number;
  /** Shared counters across API processes; memory when absent (embedded mode). */
  redis?: Redis;
  prefix?: string;
}

/**
 * Rate limits per tenant and per key (a fixed one-minute window), answering 429 with Retry-After.
 * Counters live in Redis so every API process shares them.
 */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler<{ Variables: AuthVariables }> {
  const make = (keyPrefix: string) => {
    const memory = new RateLimiterMemory({ keyPrefix, points: 1, duration: 60 });
    // While Redis is unreachable each process counts on its own instead of failing the request.
    return options.redis
      ? new RateLimiterRedis({
          storeClient: options.redis,
          keyPrefix: `${options.prefix ?? 'agentry'}:rl:${keyPrefix}`,
          points: 1,
          duration: 60,
          insuranceLimiter: memory,
        })
      : memory;
  };
  const tenantLimiter = make('tenant');
  const keyLimiter = make('key');
  return async (c, next) => {
    const tenantLimit = c.var.tenant.requestsPerMinute ?? options.perMinute;
    await consume(tenantLimiter, c.var.tenant.id, tenantLimit, 'tenant');
    await consume(keyLimiter, c.var.apiKeyId, options.perMinute, 'key');
    await next();
  };
}

async function consume(
  limiter: RateLimiterMemory | RateLimiterRedis,
  key: string,
  limit: number,
  scope: string,
): Promise<void> {
  try {
    // One counter per key; the limit is checked here so a tenant's own setting applies immediately.
    const res = await limiter.penalty(key, 1);
    if (res.consumedPoints > limit) throw tooMany(scope, res.msBeforeNext);
  } catch (error) {
    if (error instanceof RateLimiterRes) throw tooMany(scope, error.msBeforeNext);
    throw error;
  }
}

function tooMany(scope: string, msBeforeNext: number): AppError {
  return new AppError({
    code: 'rate_limited',
    message: `Too many requests for this ${scope}; slow down`,
    category: 'user',
    status: 429,
    retryable: true,
    retryAfterMs: Math.max(1000, msBeforeNext),
  });
}

/** Throws 429 `quota_exceeded` when the tenant has used its daily runs or tokens (UTC days). */
export async function assertDailyQuota(db: Db, tenant: Tenant, now = new Date()): Promise<void> {
  if (tenant.dailyRunLimit === null && tenant.dailyTokenLimit === null) return;
  const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const used = await tenantUsageSince(db, tenant.id, midnight);
  const over =
    tenant.dailyRunLimit !== null && used.runs >= tenant.dailyRunLimit
      ? `its ${tenant.dailyRunLimit} runs`
      : tenant.dailyTokenLimit !== null && used.tokens >= tenant.dailyTokenLimit
        ? `its ${tenant.dailyTokenLimit} tokens`
        : undefined;
  if (!over) return;
  throw new AppError({
    code: 'quota_exceeded',
    message: `The tenant has used ${over} for today (UTC); the quota resets at midnight UTC`,
    category: 'user',
    status: 429,
    retryable: true,
    retryAfterMs: midnight.getTime() + 86_400_000 - now.getTime(),
    details: { runs_today: used.runs, tokens_today: used.tokens },
  });
}
