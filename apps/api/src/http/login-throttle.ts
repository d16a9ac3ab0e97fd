import { createHash } from 'node:crypto';
import { type AppError, errors } from '@agentry/errors';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export interface LoginThrottleOptions {
  /** Consecutive failures allowed per email and IP before attempts are refused (default 5). */
  maxFailuresPerEmailAndIp?: number;
  /** Failures allowed per IP, whatever the email (default 100). */
  maxFailuresPerIp?: number;
  /** How long failures are remembered, from the first one (default 15 minutes). */
  windowSeconds?: number;
  /** Shared counters across API processes; memory when absent (embedded mode). */
  redis?: Redis;
  prefix?: string;
}

export interface LoginThrottle {
  /**
   * Counts an attempt before the password is checked (so parallel guesses cannot slip past a
   * check-then-count race); throws 429 `login_throttled` with Retry-After when over a limit.
   */
  attempt(email: string, ip: string): Promise<void>;
  /** A successful login: the email+IP failures are forgotten and the IP's attempt given back. */
  succeeded(email: string, ip: string): Promise<void>;
}

/**
 * Brute-force throttling for password logins: per email+IP (consecutive failures; a success
 * resets it) and per IP (guessing many accounts). Counters live in Redis in production, like the
 * API rate limits, and in memory in the embedded mode. Emails are hashed into keys, never stored.
 *
 * @example
 * const throttle = createLoginThrottle({ redis, prefix });
 * await throttle.attempt(email, ip);
 * if (ok) await throttle.succeeded(email, ip);
 */
export function createLoginThrottle(options: LoginThrottleOptions = {}): LoginThrottle {
  const duration = options.windowSeconds ?? 15 * 60;
  const make = (keyPrefix: string, points: number) =>
    sharedLimiter({ ...options, scope: 'login', keyPrefix, points, duration });
  const perEmail = make('email-ip', options.maxFailuresPerEmailAndIp ?? 5);
  const perIp = make('ip', options.maxFailuresPerIp ?? 100);
  const emailKey = (email: string, ip: string) => hashedKey(`${email.trim().toLowerCase()}\n${ip}`);

  return {
    async attempt(email, ip) {
      await consume(perIp, ip, throttled);
      await consume(perEmail, emailKey(email, ip), throttled);
    },
    async succeeded(email, ip) {
      await Promise.all([perEmail.delete(emailKey(email, ip)), perIp.reward(ip, 1)]);
    },
  };
}

/** A counter kept in Redis (shared by API processes) or, without Redis, in this process. */
export type SharedLimiter = RateLimiterMemory | RateLimiterRedis;

/**
 * A fixed-window counter of `points` per `duration` seconds under `<prefix>:<scope>:<keyPrefix>`:
 * in Redis when given (falling back to this process's memory while Redis is unreachable, rather
 * than failing the request), else in memory (embedded mode).
 */
export function sharedLimiter(options: {
  redis?: Redis;
  prefix?: string;
  scope: string;
  keyPrefix: string;
  points: number;
  duration: number;
}): SharedLimiter {
  const { keyPrefix, points, duration } = options;
  const memory = new RateLimiterMemory({ keyPrefix, points, duration });
  return options.redis
    ? new RateLimiterRedis({
        storeClient: options.redis,
        keyPrefix: `${options.prefix ?? 'agentry'}:${options.scope}:${keyPrefix}`,
        points,
        duration,
        insuranceLimiter: memory,
      })
    : memory;
}

/** A key that names no email or address in the store. */
export function hashedKey(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** What a throttle answers when a key is over its limit (a 429 code of the error table). */
export interface Refusal {
  code: 'login_throttled' | 'password_reset_throttled';
  message: string;
}

/** Counts one attempt on `key`; over the limit throws the refusal, retryable after the window's rest. */
export async function consume(limiter: SharedLimiter, key: string, refusal: Refusal): Promise<void> {
  try {
    await limiter.consume(key, 1);
  } catch (error) {
    if (error instanceof RateLimiterRes) throw tooMany(refusal, error.msBeforeNext);
    throw error;
  }
}

function tooMany(refusal: Refusal, msBeforeNext: number): AppError {
  return errors.of({ ...refusal, category: 'user', retryable: true, retryAfterMs: Math.max(1000, msBeforeNext) });
}

const throttled: Refusal = {
  code: 'login_throttled',
  message: 'Too many failed sign-in attempts; wait before trying again',
};
