import { ERROR_STATUS, type ErrorCode, type ErrorCodeWithStatus, type NotFoundResource } from '@agentry/contract';
import { AppError, type AppErrorOptions, type FieldIssue } from './app-error.ts';

/**
 * Factories for the errors used across packages. Each takes its code from the contract's closed
 * `ErrorCode` union (only codes of the factory's status) and its status from the contract's
 * `ERROR_STATUS` table, so an unknown code fails the typecheck and a status is recorded only once.
 */
export const errors = {
  /**
   * Any error the API answers with, by its code; the status comes from the table.
   *
   * @example
   * throw errors.of({ code: 'server_busy', message: 'Busy; try again', category: 'system', retryable: true });
   */
  of: (options: Omit<AppErrorOptions, 'code' | 'status'> & { code: ErrorCode }) =>
    new AppError({ ...options, status: ERROR_STATUS[options.code] }),
  badRequest: (code: ErrorCodeWithStatus<400>, message: string, details?: Record<string, unknown>) =>
    new AppError({ code, message, category: 'user', status: ERROR_STATUS[code], details }),
  invalidJson: (message = 'The request body is not valid JSON') =>
    new AppError({ code: 'invalid_json', message, category: 'user', status: ERROR_STATUS.invalid_json }),
  validation: (message: string, issues: FieldIssue[], code: ErrorCodeWithStatus<422> = 'validation_failed') =>
    new AppError({ code, message, category: 'user', status: ERROR_STATUS[code], issues }),
  unauthorized: (message = 'A valid API key is required') =>
    new AppError({ code: 'unauthorized', message, category: 'user', status: ERROR_STATUS.unauthorized }),
  forbidden: (message = 'This key may not do that') =>
    new AppError({ code: 'forbidden', message, category: 'user', status: ERROR_STATUS.forbidden }),
  notFound: (resource: NotFoundResource, id?: string) => {
    const code = `${resource}_not_found` as const;
    return new AppError({
      code,
      message: id ? `No ${resource.replaceAll('_', ' ')} with id ${id}` : `No such ${resource.replaceAll('_', ' ')}`,
      category: 'user',
      status: ERROR_STATUS[code],
    });
  },
  conflict: (code: ErrorCodeWithStatus<409>, message: string) =>
    new AppError({ code, message, category: 'user', status: ERROR_STATUS[code] }),
  payloadTooLarge: (limitBytes: number) =>
    new AppError({
      code: 'payload_too_large',
      message: `The request body is larger than ${limitBytes} bytes`,
      category: 'user',
      status: ERROR_STATUS.payload_too_large,
      details: { limit_bytes: limitBytes },
    }),
  modelNotConfigured: (provider?: string) =>
    new AppError({
      code: 'model_not_configured',
      message: provider
        ? `The agent uses provider "${provider}" but no API key or base URL is configured for it`
        : 'No model provider is configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL',
      category: 'system',
      status: ERROR_STATUS.model_not_configured,
      retryable: false,
    }),
  /** `status` overrides the table's for this one error (a model request that timed out is 504). */
  upstream: (
    code: ErrorCode,
    message: string,
    options: { retryable: boolean; retryAfterMs?: number; status?: number; cause?: unknown },
  ) => new AppError({ code, message, category: 'upstream', ...options, status: options.status ?? ERROR_STATUS[code] }),
  unavailable: (code: ErrorCodeWithStatus<503>, message: string, retryAfterMs?: number) =>
    new AppError({ code, message, category: 'system', status: ERROR_STATUS[code], retryable: true, retryAfterMs }),
  internal: (message: string, cause?: unknown) =>
    new AppError({
      code: 'internal_error',
      message,
      category: 'system',
      status: ERROR_STATUS.internal_error,
      retryable: false,
      cause,
    }),
};
