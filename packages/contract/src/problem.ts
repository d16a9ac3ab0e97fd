/** One problem inside a validation error: a JSON pointer `path`, a stable `code`, a message, a hint. */
export interface FieldIssue {
  path: string;
  code: string;
  message: string;
  hint?: string;
}

/**
 * An error answer of the API: RFC 9457 problem details (`application/problem+json`) with the
 * stable `code` (one of `ErrorCode`, as a string so a client also reads codes newer than itself).
 * An error's safe `details` are added as extra members.
 */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  /** Every field problem of a 422 (`validation_failed` and friends). */
  errors?: FieldIssue[];
}
