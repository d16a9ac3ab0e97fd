import { type AppError, errors } from '@agentry/errors';

/**
 * Provider-neutral classification of model-call failures, shared by every adapter so the same
 * failure gets the same stable code whichever SDK reported it.
 */

/** The error for a call the caller cancelled. */
export function abortedError(cause?: unknown): AppError {
  return errors.of({
    code: 'aborted',
    message: 'The model call was aborted',
    category: 'user',
    retryable: false,
    cause,
  });
}

export interface HttpFailure {
  provider: string;
  /** The provider's HTTP status (or one derived from an in-stream error type). */
  status: number;
  /** Already scrubbed of keys. */
  message: string;
  headers?: Headers | undefined;
  requestId?: string | undefined;
  cause?: unknown;
}

/**
 * 401/403 → `model_auth_failed`; 429 → `model_rate_limited` (with Retry-After); 408/409/5xx/529 →
 * `model_unavailable` (retryable); other 4xx → `model_bad_request`.
 *
 * @example
 * throw modelHttpError({ provider: 'openai', status: 429, message, headers });
 */
export function modelHttpError(failure: HttpFailure): AppError {
  const details = { provider: failure.provider, upstreamStatus: failure.status, requestId: failure.requestId };
  const message = `${failure.provider}: ${failure.message}`;
  const { status, cause } = failure;
  if (status === 401 || status === 403)
    return errors.upstream('model_auth_failed', message, { retryable: false, details, cause });
  const retryAfterMs = retryAfterMsOf(failure.headers);
  if (status === 429) {
    return errors.upstream('model_rate_limited', message, { retryable: true, retryAfterMs, details, cause });
  }
  if (status === 408 || status === 409 || status >= 500) {
    return errors.upstream('model_unavailable', message, { retryable: true, retryAfterMs, details, cause });
  }
  return errors.upstream('model_bad_request', message, { retryable: false, details, cause });
}

/**
 * A connection that failed or timed out before the provider answered: retryable, 502 either way
 * (the message tells a timeout).
 */
export function modelConnectionError(provider: string, timedOut: boolean, message: string, cause?: unknown): AppError {
  return errors.upstream(
    'model_connection_failed',
    `${provider}: ${timedOut ? 'request timed out' : 'connection failed'}: ${message}`,
    { retryable: true, details: { provider }, cause },
  );
}

export function unexpectedModelError(provider: string, cause: unknown): AppError {
  return errors.internal(`${provider}: unexpected failure while calling the model`, cause);
}

/** Reads `retry-after-ms` or `retry-after` (seconds or an HTTP date), as the SDKs do. */
export function retryAfterMsOf(headers: Headers | undefined): number | undefined {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** undici reports a socket dropped mid-body as a bare TypeError, outside the SDKs' error classes. */
export function isTransportFailure(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return error.message === 'terminated' || (typeof code === 'string' && /^(UND_ERR|ECONN|EPIPE|ETIMEDOUT)/.test(code));
}

/** Removes the API key (and anything shaped like a provider key) from a message. */
export function scrubKey(message: string, apiKey: string, keyShape: RegExp): string {
  const withoutKey = apiKey.length >= 4 ? message.replaceAll(apiKey, '[redacted]') : message;
  return withoutKey.replace(keyShape, '[redacted]');
}
