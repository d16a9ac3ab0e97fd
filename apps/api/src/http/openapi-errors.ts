import { ERROR_STATUS, type ROUTE_ERROR_STATUS, type RouteErrorCode } from '@agentry/contract';

/**
 * The table of codes and statuses lives in the contract; the OpenAPI document reads it from here.
 * It lists only route codes (`RouteErrorCode`), never the contract's internal ones.
 */
export { ERROR_STATUS };

/** The statuses route codes are answered with. */
type RouteErrorStatus = (typeof ROUTE_ERROR_STATUS)[RouteErrorCode];

/** What the statuses mean, for response descriptions: one for each status a route code has, no more. */
export const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated',
  403: 'Not allowed',
  404: 'Not found (also for another tenant’s ids: no existence oracle)',
  409: 'Conflict',
  410: 'Gone',
  413: 'Body too large (1 MiB)',
  422: 'Not valid: `errors` lists every field problem as JSON pointers',
  429: 'Too many requests: wait `Retry-After` seconds',
  500: 'Internal error (never leaks details)',
  502: 'The run failed',
  503: 'Unavailable: `Retry-After` when retrying helps',
  504: 'The run did not finish in time',
} satisfies Record<RouteErrorStatus, string>;

/** Codes any key-authenticated tenant route can answer (key, session, scope and limits). */
export function tenantAuthCodes(options: { publishable: boolean; unsafe: boolean }): RouteErrorCode[] {
  return [
    'unauthorized',
    'invalid_end_user_token',
    'insufficient_scope',
    'origin_not_allowed',
    ...(options.publishable ? [] : (['forbidden'] as const)),
    'tenant_not_selected',
    'not_a_member',
    'tenant_suspended',
    'insufficient_role',
    ...(options.unsafe ? (['csrf_failed'] as const) : []),
    'rate_limited',
    'end_user_rate_limited',
    'internal_error',
  ];
}

/** Codes of a route that reads a JSON body with `readJson`. */
export const BODY_CODES: RouteErrorCode[] = [
  'invalid_json',
  'json_too_deep',
  'unsupported_media_type',
  'payload_too_large',
  'validation_failed',
];

/** Codes of a tenant POST, which honours `Idempotency-Key`. */
export const IDEMPOTENCY_CODES: RouteErrorCode[] = [
  'invalid_idempotency_key',
  'idempotency_key_in_use',
  'idempotency_key_reused',
];

/**
 * Codes of a route that reads or writes the database, which any of them can meet in an outage:
 * every authenticated one (the key, session or member lookup alone needs it) and a public route
 * that takes a body (sign-in, invitations). `/healthz`, `/readyz`, docs and static files do not.
 */
export function databaseCodes(options: { authenticated: boolean; body: boolean }): RouteErrorCode[] {
  return options.authenticated || options.body ? ['database_unavailable'] : [];
}
