import type { ErrorCode, ErrorCodeWithStatus, NotFoundResource } from '@agentry/contract';
import { AppError, type AppErrorOptions, type FieldIssue } from './app-error.ts';

/**
 * Factories for the errors used across packages. Each takes its code from the contract's closed
 * `ErrorCode` union (only codes of the factory's status where it has one), and `AppError` takes
 * the status from the contract's `ERROR_STATUS` table, so an unknown code fails the typecheck and
 * a status is recorded only once.
 */
export const errors = {
  /**
   * Any error, by its code; the status comes from the table.
   *
   * @example
   * throw errors.of({ code: 'server_busy', message: 'Busy; try again', category: 'system', retryable: true });
   */
  of: <C extends ErrorCode>(options: Omit<AppErrorOptions<C>, 'status'>) => new AppError<C>(options),
  badRequest: (code: ErrorCodeWithStatus<400>, message: string, details?: Record<string, unknown>) =>
    new AppError({ code, message, category: 'user', details }),
  invalidJson: (message = 'The request body is not valid JSON') =>
    new AppError({ code: 'invalid_json', message, category: 'user' }),
  validation: (message: string, issues: FieldIssue[], code: ErrorCodeWithStatus<422> = 'validation_failed') =>
    new AppError({ code, message, category: 'user', issues }),
  unauthorized: (message = 'A valid API key is required') =>
    new AppError({ code: 'unauthorized', message, category: 'user' }),
  forbidden: (message = 'This key may not do that') => new AppError({ code: 'forbidden', message, category: 'user' }),
  notFound: (resource: NotFoundResource, id?: string) =>
    new AppError({
      code: `${resource}_not_found`,
      message: id ? `No ${resource.replaceAll('_', ' ')} with id ${id}` : `No such ${resource.replaceAll('_', ' ')}`,
      category: 'user',
    }),
  conflict: (code: ErrorCodeWithStatus<409>, message: string) => new AppError({ code, message, category: 'user' }),
  payloadTooLarge: (limitBytes: number) =>
    new AppError({
      code: 'payload_too_large',
      message: `The request body is larger than ${limitBytes} bytes`,
      category: 'user',
      details: { limit_bytes: limitBytes },
    }),
  modelNotConfigured: (provider?: string) =>
    new AppError({
      code: 'model_not_configured',
      message: provider
        ? `The agent uses provider "${provider}" but no API key or base URL is configured for it (Settings → Model providers)`
        : 'No model provider is configured: add one in Settings → Model providers (PUT /v1/model-providers/{provider}), or the operator sets OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL',
      category: 'system',
      retryable: false,
    }),
  /**
   * A service we depend on failed (a model provider, an MCP server, the mail server).
   *
   * @example
   * throw errors.upstream('mcp_unreachable', 'MCP server `desk` could not be reached', { retryable: true });
   */
  upstream: (
    code: ErrorCode,
    message: string,
    options: { retryable: boolean; retryAfterMs?: number; details?: Record<string, unknown>; cause?: unknown },
  ) => new AppError({ code, message, category: 'upstream', ...options }),
  unavailable: (code: ErrorCodeWithStatus<503>, message: string, retryAfterMs?: number) =>
    new AppError({ code, message, category: 'system', retryable: true, retryAfterMs }),
  /** A non-leaking `internal_error` for anything unexpected. */
  internal: (message: string, cause?: unknown) =>
    new AppError({ code: 'internal_error', message, category: 'system', retryable: false, cause }),
  /**
   * A broken invariant or setup of ours with its own (500) code, never retried: what a log
   * reader needs to tell it from an unexpected `internal_error`.
   *
   * @example
   * throw errors.system('tenant_scope_violation', 'No tenant scope around this query');
   */
  system: (code: ErrorCodeWithStatus<500>, message: string) =>
    new AppError({ code, message, category: 'system', retryable: false }),
};
