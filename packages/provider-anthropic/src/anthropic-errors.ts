import { type AppError, isAppError } from '@agentry/errors';
import {
  abortedError,
  isTransportFailure,
  modelConnectionError,
  modelHttpError,
  scrubKey,
  unexpectedModelError,
} from '@agentry/llm';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';

export { abortedError };

const PROVIDER = 'anthropic';
const KEY_SHAPE = /\bsk-ant-[\w*-]{6,}/g;

/** Context needed to turn an SDK failure into a safe, stable AppError. */
export interface ErrorContext {
  /** Scrubbed from every message, in case an error body ever echoes it. */
  apiKey: string;
  signal?: AbortSignal | undefined;
}

/**
 * Maps anything the Anthropic SDK (or the stream it returns) throws to an AppError with a stable code.
 *
 * @example
 * try { await client.messages.create(params); } catch (e) { throw toModelError(e, ctx); }
 */
export function toModelError(error: unknown, ctx: ErrorContext): AppError {
  if (isAppError(error)) return error;
  if (error instanceof APIUserAbortError || ctx.signal?.aborted) return abortedError(error);
  // Our own fetch refused the request (the egress guard on a tenant's base URL): say why, as is.
  if (error instanceof APIConnectionError && isAppError(error.cause)) return error.cause;
  if (error instanceof APIConnectionError || isTransportFailure(error)) {
    const message = scrubKey(error.message, ctx.apiKey, KEY_SHAPE);
    return modelConnectionError(PROVIDER, error instanceof APIConnectionTimeoutError, message, error);
  }
  if (error instanceof APIError) {
    return modelHttpError({
      provider: PROVIDER,
      status: error.status ?? statusFromType(error.type),
      message: scrubKey(error.message, ctx.apiKey, KEY_SHAPE),
      headers: error.headers,
      requestId: error.requestID ?? undefined,
      cause: error,
    });
  }
  return unexpectedModelError(PROVIDER, error);
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
