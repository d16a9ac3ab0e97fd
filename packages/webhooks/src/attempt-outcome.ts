import type { DeliveryAttemptResult } from '@agentry/db';
import { toAppError } from '@agentry/errors';
import { isEgressError } from '@agentry/http-tools';
import { parseRetryAfter, retryDelayMs } from './backoff.ts';

type Backoff = { backoffBaseMs: number; backoffMaxMs: number; maxAttempts: number };

/** How much of a refusing receiver's answer is kept as the delivery's last error (bytes). */
export const ERROR_BODY_BYTES = 512;

function retryOrFail(
  attempt: number,
  settings: Backoff,
  error: { code: string; message: string },
  statusCode?: number,
  retryAfterMs?: number,
): DeliveryAttemptResult {
  const status = statusCode === undefined ? {} : { statusCode };
  if (attempt >= settings.maxAttempts) {
    return {
      outcome: 'failed',
      ...status,
      error: { code: error.code, message: `${error.message} (gave up after ${attempt} attempts)` },
    };
  }
  return { outcome: 'retry', ...status, error, retryInMs: retryDelayMs(attempt, settings, retryAfterMs) };
}

/**
 * What a receiver's answer means: 2xx delivered; 408, 429 and 5xx retried later (after
 * `Retry-After` when given); any other status (3xx included: redirects are not followed) failed at
 * once, since sending the same request again would get the same answer.
 *
 * @example
 * responseOutcome(503, '60', 'busy', 2, settings); // { outcome: 'retry', retryInMs: ≥ 60000, … }
 */
export function responseOutcome(
  statusCode: number,
  retryAfter: string | null,
  bodySnippet: string,
  attempt: number,
  settings: Backoff,
): DeliveryAttemptResult {
  if (statusCode >= 200 && statusCode < 300) return { outcome: 'delivered', statusCode };
  const said = bodySnippet.trim() ? `: ${bodySnippet.trim()}` : '';
  const error = { code: `http_${statusCode}`, message: `The receiver answered ${statusCode}${said}` };
  if (statusCode === 408 || statusCode === 429 || statusCode >= 500) {
    return retryOrFail(attempt, settings, error, statusCode, parseRetryAfter(retryAfter));
  }
  return { outcome: 'failed', statusCode, error };
}

/**
 * What a failure without an answer means: a refusal of the egress guard (private address, bad
 * scheme or header, a redirect) fails at once with its code, except a DNS failure, which may
 * heal; network errors and timeouts are retried; so are secret problems (the tenant can fix them).
 *
 * @example
 * errorOutcome(new EgressError('egress_forbidden_address', '…'), 1, settings); // failed, egress_forbidden_address
 */
export function errorOutcome(error: unknown, attempt: number, settings: Backoff): DeliveryAttemptResult {
  if (isEgressError(error)) {
    const detail = { code: error.code, message: error.message };
    return error.isRetryable ? retryOrFail(attempt, settings, detail) : { outcome: 'failed', error: detail };
  }
  const appError = toAppError(error);
  if (appError.code !== 'internal_error') {
    return retryOrFail(attempt, settings, { code: appError.code, message: appError.message });
  }
  const name = error instanceof Error ? error.name : '';
  const timedOut = name === 'TimeoutError' || name === 'AbortError';
  // The socket error's code only (ECONNREFUSED, …): its message may name a resolved address.
  const code = error instanceof Error ? (error.cause as { code?: unknown } | undefined)?.code : undefined;
  const cause = typeof code === 'string' ? ` (${code})` : '';
  return retryOrFail(
    attempt,
    settings,
    timedOut
      ? { code: 'webhook_timeout', message: 'The receiver did not answer in time' }
      : { code: 'webhook_network_error', message: `The receiver could not be reached${cause}` },
  );
}
