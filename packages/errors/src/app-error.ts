import { ERROR_STATUS, type ErrorCode, type FieldIssue, isErrorCode } from '@agentry/contract';
import { classifyInfrastructureError, type InfrastructureService } from './infrastructure-errors.ts';

/** Who is at fault: the caller (`user`), us (`system`) or a service we depend on (`upstream`). */
export type ErrorCategory = 'user' | 'system' | 'upstream';

/** One problem inside a validation error (JSON pointer path + stable code + message + hint). */
export type { FieldIssue };

export interface AppErrorOptions<C extends ErrorCode = ErrorCode> {
  /**
   * Stable, machine-readable code from the contract's closed table (`ERROR_STATUS`), e.g.
   * `agent_not_found`; the error's HTTP status is the table's. Never change a published code.
   */
  code: C;
  message: string;
  category: ErrorCategory;
  /** Whether retrying the same operation later may succeed. */
  retryable?: boolean;
  /** Milliseconds the caller should wait before retrying (429/503). */
  retryAfterMs?: number;
  /** Extra, safe-to-show data (never secrets). */
  details?: Record<string, unknown>;
  issues?: FieldIssue[];
  cause?: unknown;
}

/**
 * The single error family of Agentry. Everything that can go wrong in a way we understand is an
 * `AppError` with a stable `code` of the contract's table, which also gives its HTTP status; the
 * API maps it to problem+json, the worker decides retries from `isRetryable`. Build them with the
 * `errors.*` factories.
 *
 * @example
 * throw new AppError({ code: 'agent_not_found', message: 'No such agent', category: 'user' }); // status 404
 */
export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: ErrorCode;
  readonly category: ErrorCategory;
  /** `ERROR_STATUS[code]`. */
  readonly status: number;
  readonly isRetryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly issues: FieldIssue[] | undefined;

  constructor(options: AppErrorOptions<C>) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = options.code;
    this.category = options.category;
    this.status = statusOf(options.code) ?? defaultStatus(options.category);
    this.isRetryable = options.retryable ?? options.category !== 'user';
    this.retryAfterMs = options.retryAfterMs;
    this.details = options.details;
    this.issues = options.issues;
  }

  /** A plain JSON form, safe to store in a run row or send over a queue. */
  toJSON(): SerializedAppError {
    return {
      code: this.code,
      message: this.message,
      category: this.category,
      status: this.status,
      retryable: this.isRetryable,
      ...(this.details ? { details: this.details } : {}),
      ...(this.issues ? { issues: this.issues } : {}),
    };
  }

  /** Rebuilds an error from {@link AppError.toJSON} output (its status is the table's for its code). */
  static fromJSON(json: SerializedAppError): AppError {
    const { status: _status, ...options } = json;
    return new AppError(options);
  }
}

export interface SerializedAppError {
  code: ErrorCode;
  message: string;
  category: ErrorCategory;
  status: number;
  retryable: boolean;
  details?: Record<string, unknown>;
  issues?: FieldIssue[];
}

/** The table's status; undefined only for a code that arrived from outside the typechecked code (stored JSON). */
function statusOf(code: string): number | undefined {
  return isErrorCode(code) ? ERROR_STATUS[code] : undefined;
}

/** The status of a code missing from the table at runtime (see {@link statusOf}). */
function defaultStatus(category: ErrorCategory): number {
  if (category === 'user') return 400;
  if (category === 'upstream') return 502;
  return 500;
}

/** True for any `AppError`, including ones from another copy of this module. */
export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError || (value instanceof Error && value.name === 'AppError' && 'code' in value);
}

/** Seconds-scale: a database or Redis restart takes one or two. */
const INFRASTRUCTURE_RETRY_AFTER_MS = 1000;

/**
 * A retryable 503 for a database or Redis outage (see `classifyInfrastructureError`), keeping the
 * driver's error as `cause` for logs.
 *
 * @example
 * throw infrastructureUnavailable('database', error); // code database_unavailable
 */
export function infrastructureUnavailable(service: InfrastructureService, cause?: unknown): AppError {
  return new AppError({
    code: service === 'database' ? 'database_unavailable' : 'queue_unavailable',
    message:
      service === 'database'
        ? 'The database is unavailable; try again shortly'
        : 'The job queue is unavailable; try again shortly',
    category: 'system',
    retryable: true,
    retryAfterMs: INFRASTRUCTURE_RETRY_AFTER_MS,
    cause,
  });
}

/**
 * Wraps anything thrown into an `AppError`: known errors pass through, a database or Redis outage
 * becomes a retryable 503 (`database_unavailable`, `queue_unavailable`), anything else a
 * non-leaking `internal_error`. Both keep the original as `cause` for logs.
 *
 * @example
 * const appError = toAppError(error); // then appError.isRetryable, appError.status
 */
export function toAppError(value: unknown): AppError {
  if (isAppError(value)) return value;
  const service = classifyInfrastructureError(value);
  if (service) return infrastructureUnavailable(service, value);
  return new AppError({
    code: 'internal_error',
    message: 'An unexpected error occurred',
    category: 'system',
    retryable: false,
    cause: value,
  });
}
