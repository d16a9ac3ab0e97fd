import { AppError } from '@agentry/errors';

/** Stable codes of every refusal the egress guard makes. Never change a published code. */
export type EgressErrorCode =
  | 'egress_forbidden_scheme'
  | 'egress_forbidden_address'
  | 'egress_dns_failed'
  | 'egress_too_many_redirects'
  | 'egress_redirect_refused'
  | 'egress_bad_header'
  | 'egress_response_too_large';

/**
 * A request the egress guard refused (or a response it cut off). The message is meant for the
 * tenant and the model: it names the rule that refused, never a resolved internal address.
 *
 * @example
 * throw new EgressError('egress_forbidden_scheme', 'The tool’s URL must use http or https (got "file:").');
 */
export class EgressError extends AppError {
  declare readonly code: EgressErrorCode;

  constructor(code: EgressErrorCode, message: string, details?: Record<string, unknown>) {
    super({
      code,
      message,
      category: code === 'egress_dns_failed' ? 'upstream' : 'user',
      // A failed lookup may succeed later; a refused address, scheme or header never will.
      retryable: code === 'egress_dns_failed',
      ...(details ? { details } : {}),
    });
    this.name = 'EgressError';
  }
}

/**
 * Whether `error` is a refusal of the egress guard.
 *
 * @example
 * if (isEgressError(error)) return errorResult(error.code, error.message);
 */
export function isEgressError(error: unknown): error is EgressError {
  return error instanceof EgressError;
}
