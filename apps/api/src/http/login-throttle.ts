import { createHash } from 'node:crypto';
import { AppError } from '@agentry/errors';
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
  const make = (keyPrefix: string, points: number) => {
    const memory = new RateLimiterMemory({ keyPrefix, points, duration });
    // While Redis is unreachable each process counts on its own instead of failing logins.
    return options.redis
      ? new RateLimiterRedis({
          storeClient: options.redis,
          keyPrefix: `${options.prefix ?? 'agentry'}:login:${keyPrefix}`,
          points,
          duration,
          insuranceLimiter: memory,
        })
      : memory;
  };
  const perEmail = make('email-ip', options.maxFailuresPerEmailAndIp ?? 5);
  const perIp = make('ip', options.maxFailuresPerIp ?? 100);
  const emailKey = (email: string, ip: string) =>
    createHash('sha256').update(`${email.trim().toLowerCase()}\n${ip}`).digest('base64url');

  return {
    async attempt(email, ip) {
      await consume(perIp, ip);
      await consume(perEmail, emailKey(email, ip));
    },
    async succeeded(email, ip) {
      await Promise.all([perEmail.delete(emailKey(email, ip)), perIp.reward(ip, 1)]);
    },
  };
}

async function consume(limiter: RateLimiterMemory | RateLimiterRedis, key: string): Promise<void> {
  try {
    await limiter.consume(key, 1);
  } catch (error) {
    if (error instanceof RateLimiterRes) throw throttled(error.msBeforeNext);
    throw error;
  }
}

function throttled(msBeforeNext: number): AppError {
  return new AppError({
    code: 'login_throttled',
    message: 'Too many failed sign-in attempts; wait before trying again',
    category: 'user',
    status: 429,
    retryable: true,
    retryAfterMs: Math.max(1000, msBeforeNext),
  });
}
