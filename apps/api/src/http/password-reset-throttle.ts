import type { Redis } from 'ioredis';
import { consume, hashedKey, type Refusal, sharedLimiter } from './login-throttle.ts';

export interface PasswordResetThrottleOptions {
  /** Reset mails one address may be sent per window, whoever asks (default 5). */
  maxPerEmail?: number;
  /** Reset requests one client address may make per window, whatever the email (default 20). */
  maxPerIp?: number;
  /** The window, from the first request (default 1 hour). */
  windowSeconds?: number;
  /** Shared counters across API processes; memory when absent (embedded mode). */
  redis?: Redis;
  prefix?: string;
}

/**
 * Throttles password reset (and email confirmation) requests: per email, so nobody floods an inbox,
 * and per client address, so nobody sweeps many addresses. Every request counts, for known and
 * unknown emails alike, so the 429 tells nothing about who has an account. Counters live where the
 * login throttle's do (Redis, or memory in the embedded mode); emails are hashed into keys.
 *
 * @example
 * const throttle = createPasswordResetThrottle({ redis, prefix });
 * await throttle.attempt(email, ip);
 */
export function createPasswordResetThrottle(options: PasswordResetThrottleOptions = {}) {
  const duration = options.windowSeconds ?? 60 * 60;
  const make = (keyPrefix: string, points: number) =>
    sharedLimiter({ ...options, scope: 'password-reset', keyPrefix, points, duration });
  const perEmail = make('email', options.maxPerEmail ?? 5);
  const perIp = make('ip', options.maxPerIp ?? 20);
  return {
    /** Counts a request; throws 429 `password_reset_throttled` with Retry-After when over a limit. */
    async attempt(email: string, ip: string): Promise<void> {
      await consume(perIp, ip, throttled);
      await consume(perEmail, hashedKey(email.trim().toLowerCase()), throttled);
    },
  };
}

const throttled: Refusal = {
  code: 'password_reset_throttled',
  message: 'Too many requests for this address; wait before asking again',
};
