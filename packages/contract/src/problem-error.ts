import type { Problem } from './problem.ts';

/**
 * A failed request as a browser client sees it: the server's problem+json (`type` missing when the
 * answer was not problem+json), plus `Retry-After` in seconds when the answer had one.
 */
export interface ClientProblem extends Omit<Problem, 'type'> {
  type?: string;
  /** Seconds from a `Retry-After` header (429, 503). */
  retryAfter?: number;
  /** The error's extra members (its safe `details`, e.g. a 409 `tests_failed`'s `failing_cases`). */
  details?: Record<string, unknown>;
}

/** The members every problem has; anything else an answer carries is the error's details. */
const PROBLEM_MEMBERS = new Set(['type', 'title', 'status', 'detail', 'code', 'instance', 'errors']);

/**
 * The error the dashboard and the widget throw for a failed API call: `kind` `network` (no answer
 * at all: status 0, code `network_error`) or `http` (an answer, read as a problem).
 *
 * @example
 * if (!res.ok) throw ProblemError.fromResponse(res.status, await res.json().catch(() => undefined), res.headers.get('retry-after'));
 */
export class ProblemError extends Error {
  readonly kind: 'network' | 'http';
  readonly problem: ClientProblem;

  constructor(problem: ClientProblem, kind: 'network' | 'http' = 'http') {
    super(problem.detail || problem.title);
    this.name = 'ProblemError';
    this.kind = kind;
    this.problem = problem;
  }

  get status(): number {
    return this.problem.status;
  }

  get code(): string {
    return this.problem.code;
  }

  /** Seconds to wait before trying again, when the server said (429, 503). */
  get retryAfter(): number | undefined {
    return this.problem.retryAfter;
  }

  /** No answer at all (offline, DNS, CORS, connection reset). */
  static network(detail: string): ProblemError {
    return new ProblemError({ title: 'network error', status: 0, detail, code: 'network_error' }, 'network');
  }

  /** An error answer: its body read as a problem, with its `Retry-After` header (seconds) if any. */
  static fromResponse(status: number, body: unknown, retryAfterHeader?: string | null): ProblemError {
    const problem = toProblem(status, body);
    const retryAfter = Number(retryAfterHeader ?? Number.NaN);
    return new ProblemError(Number.isFinite(retryAfter) && retryAfter > 0 ? { ...problem, retryAfter } : problem);
  }
}

/**
 * Any failed answer's body as a problem, even when the server sent no problem+json (a proxy's HTML
 * page, an empty body): then code `http_error` and the start of the text as the detail.
 *
 * @example
 * toProblem(502, '<html>Bad gateway</html>'); // { title: 'HTTP 502', status: 502, code: 'http_error', … }
 */
export function toProblem(status: number, body: unknown): ClientProblem {
  if (body && typeof body === 'object' && 'code' in body) {
    const b = body as Partial<Problem>;
    const details = Object.fromEntries(Object.entries(body).filter(([key]) => !PROBLEM_MEMBERS.has(key)));
    return {
      title: b.title ?? String(b.code),
      status: b.status ?? status,
      detail: b.detail ?? '',
      code: String(b.code),
      ...(Array.isArray(b.errors) ? { errors: b.errors } : {}),
      ...(Object.keys(details).length > 0 ? { details } : {}),
    };
  }
  return {
    title: `HTTP ${status}`,
    status,
    detail: typeof body === 'string' ? body.slice(0, 300) : '',
    code: 'http_error',
  };
}
