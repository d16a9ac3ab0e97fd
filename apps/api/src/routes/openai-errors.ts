import type { ErrorCode } from '@agentry/contract';
import type { Run } from '@agentry/db';
import { type AppError, errors, toAppError } from '@agentry/errors';
import type { Context } from 'hono';
import type { ApiDeps } from '../deps.ts';

// Errors in OpenAI's shape `{ error: { message, type, param, code } }`, for the OpenAI-compatible routes.

/** A run that did not complete, as an error the client must not retry (tools may have run). */
export function runError(run: Run): AppError {
  const ended: Partial<Record<Run['status'], ErrorCode>> = {
    failed: 'run_failed',
    timed_out: 'run_timeout',
    cancelled: 'run_cancelled',
  };
  const code = ended[run.status] ?? 'run_not_finished';
  const message =
    code === 'run_not_finished'
      ? `The agent is still working; the run continues at GET /v1/runs/${run.id}`
      : `The run ended ${run.status}${run.error ? `: ${run.error.code}: ${run.error.message}` : ''} (GET /v1/runs/${run.id})`;
  // The status is the table's for how the run ended; OpenAI's `code` says why (the run's own error code).
  return errors.of({
    code,
    message,
    category: 'user',
    retryable: false,
    details: { param: null, noRetry: true, ...(run.error ? { wire_code: run.error.code } : {}) },
  });
}

function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** A validation error's issues as one message and the first offending parameter. */
function describeIssues(error: AppError): { message: string; param: string | null } {
  const issues = error.issues ?? [];
  const param = issues[0]?.path.replace(/^\//, '').replaceAll('/', '.') || null;
  const listed = issues.map((i) => `${i.path.replace(/^\//, '').replaceAll('/', '.') || '(body)'}: ${i.message}`);
  return { message: [error.message, ...listed].join('; '), param };
}

/**
 * Any error as OpenAI's error body.
 *
 * @example
 * openAiErrorBody(errors.unauthorized()); // { error: { message, type: 'authentication_error', param: null, code: 'invalid_api_key' } }
 */
export function openAiErrorBody(thrown: unknown) {
  const error = toAppError(thrown);
  const status = error.status === 422 ? 400 : error.status;
  const described = error.issues ? describeIssues(error) : undefined;
  const param = described?.param ?? (typeof error.details?.param === 'string' ? error.details.param : null);
  const wire = typeof error.details?.wire_code === 'string' ? error.details.wire_code : error.code;
  const code = status === 401 ? 'invalid_api_key' : wire;
  return { error: { message: described?.message ?? error.message, type: errorType(status), param, code } };
}

/** The OpenAI-compatible routes, whose every error is in OpenAI's shape. */
export const OPENAI_PATHS: readonly string[] = ['/v1/chat/completions', '/v1/models'];

/**
 * Any error as OpenAI's error response (422 answered as 400), logged when it is the server's.
 * Also used by the app's `onError` for what /v1's shared middleware (body limit, admission)
 * refuses on these routes before their own `onError` is reached.
 *
 * @example
 * app.onError((error, c) => openAiErrorResponse(deps, c, error));
 */
export function openAiErrorResponse(deps: Pick<ApiDeps, 'logger'>, c: Context, thrown: unknown): Response {
  const error = toAppError(thrown);
  if (error.status >= 500 && !error.details?.noRetry) {
    deps.logger.error({ err: error.cause ?? error, path: c.req.path, reqId: c.get('requestId') }, error.message);
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (error.retryAfterMs !== undefined) headers['retry-after'] = String(Math.ceil(error.retryAfterMs / 1000));
  // A run that started and then failed may have called tools: an SDK retry would repeat them.
  if (error.details?.noRetry) headers['x-should-retry'] = 'false';
  const status = error.status === 422 ? 400 : error.status;
  return new Response(JSON.stringify(openAiErrorBody(error)), { status, headers });
}
