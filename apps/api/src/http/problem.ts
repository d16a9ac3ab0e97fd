import type { Problem as ContractProblem } from '@agentry/contract';
import { type AppError, toAppError } from '@agentry/errors';
import type { Context } from 'hono';

/** RFC 9457 problem details, with our stable `code` (the contract's shape, plus the error's details). */
export interface Problem extends ContractProblem {
  [key: string]: unknown;
}

/** Maps an error to its problem+json body. Unknown errors never leak their message. */
export function toProblem(error: AppError, instance?: string): Problem {
  return {
    type: `https://agentry.dev/problems/${error.code.replaceAll('_', '-')}`,
    title: error.code.replaceAll('_', ' '),
    status: error.status,
    detail: error.message,
    code: error.code,
    ...(instance ? { instance } : {}),
    ...(error.issues ? { errors: error.issues } : {}),
    ...(error.details ?? {}),
  };
}

/** Writes `error` as problem+json, with Retry-After when the error says when to retry. */
export function problemResponse(c: Context, thrown: unknown): Response {
  const error = toAppError(thrown);
  const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
  if (error.retryAfterMs !== undefined) headers['retry-after'] = String(Math.ceil(error.retryAfterMs / 1000));
  return new Response(JSON.stringify(toProblem(error, c.req.path)), { status: error.status, headers });
}
