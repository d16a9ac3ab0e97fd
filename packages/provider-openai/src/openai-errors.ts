import { type AppError, isAppError } from '@agentry/errors';
import {
  abortedError,
  isTransportFailure,
  modelConnectionError,
  modelHttpError,
  scrubKey,
  unexpectedModelError,
} from '@agentry/llm';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';

export { abortedError };

/** Which flavour of the Chat Completions API an adapter talks to. */
export type OpenAIProviderName = 'openai' | 'openai_compatible';

/** Context needed to turn an SDK failure into a safe, stable AppError. */
export interface ErrorContext {
  provider: OpenAIProviderName;
  /** Scrubbed from every message: some providers echo (part of) the key in 401 bodies. */
  apiKey: string;
  signal?: AbortSignal | undefined;
}

const KEY_SHAPE = /\bsk-[\w*-]{6,}/g;

/**
 * Maps anything the OpenAI SDK (or the stream it returns) throws to an AppError with a stable code.
 *
 * @example
 * try { await client.chat.completions.create(params); } catch (e) { throw toModelError(e, ctx); }
 */
export function toModelError(error: unknown, ctx: ErrorContext): AppError {
  if (isAppError(error)) return error;
  if (error instanceof APIUserAbortError || ctx.signal?.aborted) return abortedError(error);
  // Our own fetch refused the request (the egress guard on a tenant's base URL): say why, as is.
  if (error instanceof APIConnectionError && isAppError(error.cause)) return error.cause;
  if (error instanceof APIConnectionError || isTransportFailure(error)) {
    const message = scrubKey(error.message, ctx.apiKey, KEY_SHAPE);
    return modelConnectionError(ctx.provider, error instanceof APIConnectionTimeoutError, message, error);
  }
  if (error instanceof APIError) {
    return modelHttpError({
      provider: ctx.provider,
      status: error.status ?? statusFromKind(error.code) ?? statusFromKind(error.type) ?? 500,
      message: scrubKey(error.message, ctx.apiKey, KEY_SHAPE),
      headers: error.headers,
      requestId: error.requestID ?? undefined,
      cause: error,
    });
  }
  return unexpectedModelError(ctx.provider, error);
}

/** Errors sent inside a stream carry no HTTP status, only the provider's error code and type. */
function statusFromKind(kind: string | null | undefined): number | undefined {
  if (kind === 'invalid_request_error') return 400;
  if (kind === 'authentication_error' || kind === 'invalid_api_key') return 401;
  if (kind === 'rate_limit_error' || kind === 'rate_limit_exceeded') return 429;
  return undefined;
}
