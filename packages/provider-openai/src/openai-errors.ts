import { AppError } from '@agentry/errors';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';

/** Which flavour of the Chat Completions API an adapter talks to. */
export type OpenAIProviderName = 'openai' | 'openai_compatible';

/** Context needed to turn an SDK failure into a safe, stable AppError. */
export interface ErrorContext {
  provider: OpenAIProviderName;
  /** Scrubbed from every message: some providers echo (part of) the key in 401 bodies. */
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
 * Maps anything the OpenAI SDK (or the stream it returns) throws to an AppError with a stable code.
 *
 * @example
 * try { await client.chat.completions.create(params); } catch (e) { throw toModelError(e, ctx); }
 */
export function toModelError(error: unknown, ctx: ErrorContext): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof APIUserAbortError || ctx.signal?.aborted) return abortedError(error);
  if (error instanceof APIConnectionError) return connectionError(error, ctx);
  if (error instanceof APIError) return apiError(error, ctx);
  if (isTransportFailure(error)) return connectionError(error, ctx);
  return new AppError({
    code: 'internal_error',
    message: `${ctx.provider}: unexpected failure while calling the model`,
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
    message: `${ctx.provider}: ${timedOut ? 'request timed out' : 'connection failed'}: ${scrub(error.message, ctx)}`,
    category: 'upstream',
    status: timedOut ? 504 : 502,
    retryable: true,
    details: { provider: ctx.provider },
    cause: error,
  });
}

function apiError(error: APIError, ctx: ErrorContext): AppError {
  const message = `${ctx.provider}: ${scrub(error.message, ctx)}`;
  const details = { provider: ctx.provider, upstreamStatus: error.status, requestId: error.requestID ?? undefined };
  const base = { message, category: 'upstream' as const, details, cause: error };
  const status = error.status ?? statusFromKind(error.code) ?? statusFromKind(error.type) ?? 500;
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

/** Errors sent inside a stream carry no HTTP status, only the provider's error code and type. */
function statusFromKind(kind: string | null | undefined): number | undefined {
  if (kind === 'invalid_request_error') return 400;
  if (kind === 'authentication_error' || kind === 'invalid_api_key') return 401;
  if (kind === 'rate_limit_error' || kind === 'rate_limit_exceeded') return 429;
  return undefined;
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
  return withoutKey.replace(/\bsk-[\w*-]{6,}/g, 'sk-[redacted]');
}
