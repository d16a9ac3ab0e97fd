import type { Problem as ContractProblem, FieldIssue } from '@agentry/contract';

/** One loader or request issue: `path` is a JSON pointer into the request body's config. */
export type { FieldIssue };

/**
 * RFC 9457 problem details as the API sends them (the contract's shape; `type` is missing when the
 * server sent no problem+json), plus the `Retry-After` header.
 */
export interface Problem extends Omit<ContractProblem, 'type'> {
  type?: string;
  /** Seconds from a `Retry-After` header (429, 503). */
  retryAfter?: number;
}

export class ApiError extends Error {
  readonly problem: Problem;
  constructor(problem: Problem) {
    super(problem.detail || problem.title);
    this.problem = problem;
  }
  get status(): number {
    return this.problem.status;
  }
  get code(): string {
    return this.problem.code;
  }
}

/** Turns any failed response body into a Problem, even when the server sent no problem+json. */
export function toProblem(status: number, body: unknown): Problem {
  if (body && typeof body === 'object' && 'code' in body) {
    const b = body as Partial<Problem>;
    return {
      title: b.title ?? String(b.code),
      status: b.status ?? status,
      detail: b.detail ?? '',
      code: String(b.code),
      ...(Array.isArray(b.errors) ? { errors: b.errors } : {}),
    };
  }
  return {
    title: `HTTP ${status}`,
    status,
    detail: typeof body === 'string' ? body.slice(0, 300) : '',
    code: 'http_error',
  };
}
