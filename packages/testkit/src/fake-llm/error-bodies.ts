import type { FakeProtocol } from './types.ts';

/** What an error answer needs, independent of the protocol. */
export interface WireError {
  status: number;
  message: string;
  /** Overrides the protocol's default error type for the status. */
  errorType?: string;
}

const ANTHROPIC_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** Type and code as the real OpenAI API reports them for a status (it uses few distinct types). */
function openaiTypeAndCode(status: number): { type: string; code: string | null } {
  if (status === 401) return { type: 'invalid_request_error', code: 'invalid_api_key' };
  if (status === 429) return { type: 'requests', code: 'rate_limit_exceeded' };
  if (status >= 500) return { type: 'server_error', code: null };
  return { type: 'invalid_request_error', code: null };
}

/**
 * OpenAI's error body: `{ error: { message, type, param, code } }`.
 *
 * @example
 * openaiErrorBody({ status: 429, message: 'slow down' }); // { error: { message: 'slow down', type: 'requests', … } }
 */
export function openaiErrorBody(error: WireError): { error: Record<string, unknown> } {
  const { type, code } = openaiTypeAndCode(error.status);
  return { error: { message: error.message, type: error.errorType ?? type, param: null, code } };
}

/**
 * Anthropic's error body: `{ type: 'error', error: { type, message }, request_id }`.
 *
 * @example
 * anthropicErrorBody({ status: 529, message: 'busy' }, 'req_1'); // { type: 'error', error: { type: 'overloaded_error', … } }
 */
export function anthropicErrorBody(error: WireError, requestId: string): Record<string, unknown> {
  const fallback = error.status >= 500 ? 'api_error' : 'invalid_request_error';
  const type = error.errorType ?? ANTHROPIC_TYPES[error.status] ?? fallback;
  return { type: 'error', error: { type, message: error.message }, request_id: requestId };
}

/**
 * The error body in the given protocol's shape.
 *
 * @example
 * errorBody('openai', { status: 500, message: 'boom' }, 'req_1');
 */
export function errorBody(protocol: FakeProtocol, error: WireError, requestId: string): Record<string, unknown> {
  return protocol === 'openai' ? openaiErrorBody(error) : anthropicErrorBody(error, requestId);
}
