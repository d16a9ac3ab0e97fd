/**
 * The error codes the API answers with, by HTTP status, for the OpenAPI document. Each route lists
 * its own codes; the codes every route of an authentication kind can answer are added for it.
 */
export const ERROR_STATUS: Record<string, number> = {
  // 400
  invalid_json: 400,
  json_too_deep: 400,
  unsupported_media_type: 400,
  invalid_query: 400,
  invalid_secret_name: 400,
  invalid_idempotency_key: 400,
  invalid_messages: 400,
  unsupported_content: 400,
  unsupported_parameter: 400,
  unsupported_value: 400,
  // 401
  unauthorized: 401,
  invalid_api_key: 401,
  invalid_end_user_token: 401,
  invalid_credentials: 401,
  // 403
  forbidden: 403,
  insufficient_scope: 403,
  origin_not_allowed: 403,
  tenant_not_selected: 403,
  not_a_member: 403,
  csrf_failed: 403,
  insufficient_role: 403,
  tenant_suspended: 403,
  // 404
  agent_not_found: 404,
  agent_version_not_found: 404,
  conversation_not_found: 404,
  run_not_found: 404,
  tool_not_found: 404,
  secret_not_found: 404,
  api_key_not_found: 404,
  tenant_not_found: 404,
  model_not_found: 404,
  member_not_found: 404,
  invitation_not_found: 404,
  password_reset_not_found: 404,
  email_confirmation_not_found: 404,
  webhook_delivery_not_found: 404,
  // 409
  agent_not_published: 409,
  conversation_busy: 409,
  run_not_waiting: 409,
  missing_secret: 409,
  idempotency_key_in_use: 409,
  last_owner: 409,
  already_a_member: 409,
  user_exists: 409,
  email_already_verified: 409,
  run_cancelled: 409,
  webhook_delivery_not_failed: 409,
  // 410
  invitation_expired: 410,
  password_reset_expired: 410,
  email_confirmation_expired: 410,
  // 413
  payload_too_large: 413,
  // 422
  validation_failed: 422,
  invalid_context: 422,
  invalid_arguments: 422,
  idempotency_key_reused: 422,
  // 429
  rate_limited: 429,
  end_user_rate_limited: 429,
  quota_exceeded: 429,
  conversation_queue_full: 429,
  too_many_streams_for_visitor: 429,
  login_throttled: 429,
  password_reset_throttled: 429,
  // 500
  internal_error: 500,
  // 502/504 (chat completions)
  run_failed: 502,
  run_timeout: 504,
  run_not_finished: 504,
  mail_failed: 502,
  // 503
  model_not_configured: 503,
  database_unavailable: 503,
  queue_unavailable: 503,
  too_many_streams: 503,
  server_busy: 503,
  secrets_not_configured: 503,
  mail_not_configured: 503,
  widget_not_built: 503,
  dashboard_not_built: 400,
};

/** What the statuses mean, for response descriptions. */
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
};

/** Codes any key-authenticated tenant route can answer (key, session, scope and limits). */
export function tenantAuthCodes(options: { publishable: boolean; unsafe: boolean }): string[] {
  return [
    'unauthorized',
    'invalid_end_user_token',
    'insufficient_scope',
    'origin_not_allowed',
    ...(options.publishable ? [] : ['forbidden']),
    'tenant_not_selected',
    'not_a_member',
    'tenant_suspended',
    'insufficient_role',
    ...(options.unsafe ? ['csrf_failed'] : []),
    'rate_limited',
    'end_user_rate_limited',
    'internal_error',
  ];
}

/** Codes of a route that reads a JSON body with `readJson`. */
export const BODY_CODES = [
  'invalid_json',
  'json_too_deep',
  'unsupported_media_type',
  'payload_too_large',
  'validation_failed',
];

/** Codes of a tenant POST, which honours `Idempotency-Key`. */
export const IDEMPOTENCY_CODES = ['invalid_idempotency_key', 'idempotency_key_in_use', 'idempotency_key_reused'];

/**
 * Codes of a route that reads or writes the database, which any of them can meet in an outage:
 * every authenticated one (the key, session or member lookup alone needs it) and a public route
 * that takes a body (sign-in, invitations). `/healthz`, `/readyz`, docs and static files do not.
 */
export function databaseCodes(options: { authenticated: boolean; body: boolean }): string[] {
  return options.authenticated || options.body ? ['database_unavailable'] : [];
}
