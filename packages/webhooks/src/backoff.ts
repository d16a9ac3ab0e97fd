/** The longest `Retry-After` honoured; a receiver asking for more is retried after this. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/**
 * Delay before the attempt after `attempt` (1-based): `base × 2^(attempt−1)` capped at `max`, with
 * "equal jitter" (a random point in its upper half) so receivers coming back are not hit by every
 * sender at once. A receiver's `Retry-After` is honoured: never retried sooner than it asked.
 *
 * @example
 * retryDelayMs(3, { backoffBaseMs: 1000, backoffMaxMs: 60_000 }); // 2000–4000
 * retryDelayMs(1, { backoffBaseMs: 1000, backoffMaxMs: 60_000 }, 30_000); // 30000
 */
export function retryDelayMs(
  attempt: number,
  settings: { backoffBaseMs: number; backoffMaxMs: number },
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(settings.backoffMaxMs, settings.backoffBaseMs * 2 ** Math.max(0, attempt - 1));
  const jittered = exponential / 2 + random() * (exponential / 2);
  return Math.round(Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS)));
}

/**
 * `Retry-After` in milliseconds from now: delta-seconds or an HTTP date; undefined when absent or
 * unreadable.
 *
 * @example
 * parseRetryAfter('120'); // 120000
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
