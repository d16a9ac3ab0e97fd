import { AppError } from '@agentry/errors';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';

const PROVIDER = 'anthropic';

/** Context needed to turn an SDK failure into a safe, stable AppError. */
export interface ErrorContext {
  /** Scrubbed from every message, in case an error body ever echoes it. */
  apiKey: string;
  signal?: AbortSignal | undefined;
}

/** The error for a call the caller cancelled. */
export function abortedError(cause?: unknown): AppError {
  return new AppError({
    code: 'aborted',
    message: 'The model call was aborted',
    category: 'user',
    status: 499,
    retryable: false,
    cause,
  });
}

/**
 * Maps anything the Anthropic SDK (or the stream it returns) throws to an AppError with a stable code.
 *
 * @example
 * try { await client.messages.create(params); } catch (e) { throw toModelError(e, ctx); }
 */
export function toModelError(error: unknown, ctx: ErrorContext): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof APIUserAbortError || ctx.signal?.aborted) return abortedError(error);
  if (error instanceof APIConnectionError) return connectionError(error, ctx);
  if (error instanceof APIError) return apiError(error, ctx);
  if (isTransportFailure(error)) return connectionError(error, ctx);
  return new AppError({
    code: 'internal_error',
    message: `${PROVIDER}: unexpected failure while calling the model`,
    category: 'system',
    status: 500,
    retryable: false,
    cause: error,
  });
}

function connectionError(error: Error, ctx: ErrorContext): AppError {
  const timedOut = error instanceof APIConnectionTimeoutError;
  return new AppError({
    code: 'model_connection_failed',
    message: `${PROVIDER}: ${timedOut ? 'request timed out' : 'connection failed'}: ${scrub(error.message, ctx)}`,
    category: 'upstream',
    status: timedOut ? 504 : 502,
    retryable: true,
    details: { provider: PROVIDER },
    cause: error,
  });
}

function apiError(error: APIError, ctx: ErrorContext): AppError {
  const message = `${PROVIDER}: ${scrub(error.message, ctx)}`;
  const details = { provider: PROVIDER, upstreamStatus: error.status, requestId: error.requestID ?? undefined };
  const base = { message, category: 'upstream' as const, details, cause: error };
  const status = error.status ?? statusFromType(error.type);
  if (status === 401 || status === 403) return new AppError({ ...base, code: 'model_auth_failed', retryable: false });
  if (status === 429) {
    const retryAfterMs = retryAfterMsOf(error.headers);
    return new AppError({ ...base, code: 'model_rate_limited', status: 429, retryable: true, retryAfterMs });
  }
  if (status === 408 || status === 409 || status >= 500) {
    const retryAfterMs = retryAfterMsOf(error.headers);
    return new AppError({ ...base, code: 'model_unavailable', status: 503, retryable: true, retryAfterMs });
  }
  return new AppError({ ...base, code: 'model_bad_request', retryable: false });
}

/** Errors sent inside a stream (`event: error`) carry no HTTP status, only the error type. */
function statusFromType(type: string | null): number {
  switch (type) {
    case 'invalid_request_error':
      return 400;
    case 'authentication_error':
      return 401;
    case 'permission_error':
      return 403;
    case 'not_found_error':
      return 404;
    case 'request_too_large':
      return 413;
    case 'rate_limit_error':
      return 429;
    case 'overloaded_error':
      return 529;
    default:
      return 500;
  }
}

/** Reads `retry-after-ms` or `retry-after` (seconds or an HTTP date), as the SDK does. */
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

/** undici reports a socket dropped mid-body as a bare TypeError, outside the SDK's error classes. */
function isTransportFailure(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return error.message === 'terminated' || (typeof code === 'string' && /^(UND_ERR|ECONN|EPIPE|ETIMEDOUT)/.test(code));
}

function scrub(message: string, ctx: ErrorContext): string {
  const withoutKey = ctx.apiKey.length >= 4 ? message.replaceAll(ctx.apiKey, '[redacted]') : message;
  return withoutKey.replace(/\bsk-ant-[\w*-]{6,}/g, 'sk-ant-[redacted]');
}
