import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, parseRetryAfter, retryDelayMs } from './backoff.ts';
import { webhookSettingsFromEnv } from './settings.ts';

const settings = { backoffBaseMs: 1000, backoffMaxMs: 60_000 };

describe('webhook backoff', () => {
  it('doubles per attempt within [d/2, d], capped at the maximum', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, settings, undefined, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, settings, undefined, () => 1))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs(30, settings, undefined, () => 1)).toBe(60_000);
    expect(retryDelayMs(30, settings, undefined, () => 0)).toBe(30_000);
  });

  it('spreads retries (jitter)', () => {
    const delays = new Set(Array.from({ length: 50 }, () => retryDelayMs(5, settings)));
    expect(delays.size).toBeGreaterThan(10);
    for (const d of delays) expect(d).toBeGreaterThanOrEqual(8000);
  });

  it('honours Retry-After, bounded', () => {
    expect(retryDelayMs(1, settings, 120_000, () => 0)).toBe(120_000);
    expect(retryDelayMs(3, settings, 10, () => 1)).toBe(4000);
    expect(retryDelayMs(1, settings, 10 * MAX_RETRY_AFTER_MS)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('120')).toBe(120_000);
    expect(parseRetryAfter(new Date(Date.now() + 5000).toUTCString(), Date.now())).toBeGreaterThan(3000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('reads its settings from the environment and refuses bad ones', () => {
    expect(webhookSettingsFromEnv({ WEBHOOK_MAX_ATTEMPTS: '3', WEBHOOK_BACKOFF_BASE_MS: '50' })).toMatchObject({
      maxAttempts: 3,
      backoffBaseMs: 50,
      backoffMaxMs: 3_600_000,
    });
    expect(() => webhookSettingsFromEnv({ WEBHOOK_MAX_ATTEMPTS: '0' })).toThrow(/WEBHOOK_MAX_ATTEMPTS/);
  });
});
