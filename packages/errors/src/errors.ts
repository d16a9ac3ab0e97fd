import { AppError, type FieldIssue } from './app-error.ts';

/** Factories for the errors used across packages, so codes and statuses stay consistent. */
export const errors = {
  badRequest: (code: string, message: string, details?: Record<string, unknown>) =>
    new AppError({ code, message, category: 'user', status: 400, details }),
  invalidJson: (message = 'The request body is not valid JSON') =>
    new AppError({ code: 'invalid_json', message, category: 'user', status: 400 }),
  validation: (message: string, issues: FieldIssue[], code = 'validation_failed') =>
    new AppError({ code, message, category: 'user', status: 422, issues }),
  unauthorized: (message = 'A valid API key is required') =>
    new AppError({ code: 'unauthorized', message, category: 'user', status: 401 }),
  forbidden: (message = 'This key may not do that') =>
    new AppError({ code: 'forbidden', message, category: 'user', status: 403 }),
  notFound: (resource: string, id?: string) =>
    new AppError({
      code: `${resource}_not_found`,
      message: id ? `No ${resource.replaceAll('_', ' ')} with id ${id}` : `No such ${resource.replaceAll('_', ' ')}`,
      category: 'user',
      status: 404,
    }),
  conflict: (code: string, message: string) => new AppError({ code, message, category: 'user', status: 409 }),
  payloadTooLarge: (limitBytes: number) =>
    new AppError({
      code: 'payload_too_large',
      message: `The request body is larger than ${limitBytes} bytes`,
      category: 'user',
      status: 413,
      details: { limit_bytes: limitBytes },
    }),
  modelNotConfigured: (provider?: string) =>
    new AppError({
      code: 'model_not_configured',
      message: provider
        ? `The agent uses provider "${provider}" but no API key or base URL is configured for it`
        : 'No model provider is configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY or OPENAI_BASE_URL',
      category: 'system',
      status: 503,
      retryable: false,
    }),
  upstream: (
    code: string,
    message: string,
    options: { retryable: boolean; retryAfterMs?: number; status?: number; cause?: unknown },
  ) => new AppError({ code, message, category: 'upstream', status: options.status ?? 502, ...options }),
  unavailable: (code: string, message: string, retryAfterMs?: number) =>
    new AppError({ code, message, category: 'system', status: 503, retryable: true, retryAfterMs }),
  internal: (message: string, cause?: unknown) =>
    new AppError({ code: 'internal_error', message, category: 'system', status: 500, retryable: false, cause }),
};
