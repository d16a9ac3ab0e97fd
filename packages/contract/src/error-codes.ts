/**
 * Every error code of Agentry (the `code` of an `AppError` and of the API's problem+json bodies)
 * and its HTTP status, in one place: `@agentry/errors` takes an error's status from this table,
 * and the OpenAPI document lists each route's codes under these statuses. The list is closed: a
 * code not in the table fails the typecheck, and every code has exactly one status, an HTTP error
 * status of {@link ErrorStatus}. Never change a published code or its status.
 */

/** The statuses errors are answered with (499: the client went away, nobody reads the answer). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 422 | 429 | 499 | 500 | 502 | 503 | 504;

/** The codes routes answer with, which the OpenAPI document may list. */
export const ROUTE_ERROR_STATUS = {
  // 400
  invalid_json: 400,
  json_too_deep: 400,
  unsupported_media_type: 400,
  invalid_query: 400,
  invalid_secret_name: 400,
  invalid_model_provider: 400,
  invalid_idempotency_key: 400,
  invalid_messages: 400,
  unsupported_content: 400,
  unsupported_parameter: 400,
  unsupported_document_type: 400,
  unsupported_value: 400,
  route_not_found: 400,
  dashboard_not_built: 400,
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
  model_provider_not_found: 404,
  api_key_not_found: 404,
  tenant_not_found: 404,
  model_not_found: 404,
  member_not_found: 404,
  invitation_not_found: 404,
  password_reset_not_found: 404,
  email_confirmation_not_found: 404,
  webhook_delivery_not_found: 404,
  knowledge_base_not_found: 404,
  knowledge_document_not_found: 404,
  agent_test_not_found: 404,
  test_run_not_found: 404,
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
  knowledge_base_full: 409,
  document_not_resyncable: 409,
  embedding_model_mismatch: 409,
  // Handoff (issue 21): a person's action on a conversation in a mode that does not allow it
  conversation_not_waiting: 409,
  conversation_assigned_elsewhere: 409,
  tests_failed: 409,
  test_run_active: 409,
  // 410
  invitation_expired: 410,
  password_reset_expired: 410,
  email_confirmation_expired: 410,
  // 413
  payload_too_large: 413,
  import_too_large: 413,
  document_too_large: 413,
  // 422
  validation_failed: 422,
  invalid_context: 422,
  invalid_arguments: 422,
  idempotency_key_reused: 422,
  // POST /v1/tools/import: a document or command that cannot become tools
  import_document_invalid: 422,
  import_curl_invalid: 422,
  import_too_many_operations: 422,
  import_too_many_refs: 422,
  // A knowledge document that cannot be read (a corrupt PDF, a page with no text): its `error.code`
  document_unreadable: 422,
  // 429
  rate_limited: 429,
  end_user_rate_limited: 429,
  quota_exceeded: 429,
  conversation_queue_full: 429,
  too_many_streams_for_visitor: 429,
  login_throttled: 429,
  password_reset_throttled: 429,
  knowledge_quota_exceeded: 429,
  // 500
  internal_error: 500,
  // 502/504 (chat completions)
  run_failed: 502,
  run_timeout: 504,
  run_not_finished: 504,
  mail_failed: 502,
  import_fetch_failed: 502,
  // The egress guard refusing a tool import's document URL or remote $ref (also inside runs, as tool results)
  egress_forbidden_scheme: 400,
  egress_forbidden_address: 400,
  egress_too_many_redirects: 400,
  egress_dns_failed: 502,
  // 503
  model_not_configured: 503,
  database_unavailable: 503,
  queue_unavailable: 503,
  too_many_streams: 503,
  server_busy: 503,
  secrets_not_configured: 503,
  mail_not_configured: 503,
  widget_not_built: 503,
  embeddings_not_configured: 503,
} as const satisfies Record<string, ErrorStatus>;

/**
 * Internal codes: errors raised inside a run (model and tool calls, MCP, egress), by the worker,
 * at startup, or only by a bug. No route answers with them by design, so the OpenAPI document
 * never lists them; they reach a client at most as a run's error, a tool result or a validation
 * issue (whose codes are their own), or as a bug's 500. Their status still matters to logs and to
 * anything that answers one by accident.
 */
export const INTERNAL_ERROR_STATUS = {
  // A call the caller cancelled, a request whose client went away: nobody reads the answer.
  aborted: 499,
  client_closed_request: 499,
  // A model call (packages/llm and the providers); a 401/403/400 of the provider is our fault, 502.
  model_auth_failed: 502,
  model_bad_request: 502,
  model_rate_limited: 429,
  model_unavailable: 503,
  model_connection_failed: 502,
  model_stream_incomplete: 502,
  // A tool call: a client tool the server may not run, an MCP server, the egress guard.
  client_tool: 422,
  // A tool reads `{{user.x}}` but the run has no verified (unexpired) end user: the model relays the sign-in message.
  sign_in_required: 401,
  mcp_stdio_unavailable: 422,
  mcp_timeout: 502,
  mcp_unreachable: 502,
  egress_redirect_refused: 400,
  egress_bad_header: 400,
  egress_response_too_large: 400,
  // The worker, the database layer and startup: a broken invariant or setup.
  stale_attempt: 500,
  run_target_missing: 500,
  tenant_scope_violation: 500,
  secret_unreadable: 500,
  auth_notifications_unavailable: 500,
} as const satisfies Record<string, ErrorStatus>;

/** Both tables: every code and its one status. */
export const ERROR_STATUS = { ...ROUTE_ERROR_STATUS, ...INTERNAL_ERROR_STATUS } as const satisfies Record<
  string,
  ErrorStatus
>;

/** Any error code (the closed list). */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** A code a route may answer with (and the OpenAPI document list). */
export type RouteErrorCode = keyof typeof ROUTE_ERROR_STATUS;

/** A code no route answers with by design (see {@link INTERNAL_ERROR_STATUS}). */
export type InternalErrorCode = keyof typeof INTERNAL_ERROR_STATUS;

/** The codes answered with HTTP status `S`, e.g. `ErrorCodeWithStatus<409>`. */
export type ErrorCodeWithStatus<S extends number> = {
  [C in ErrorCode]: (typeof ERROR_STATUS)[C] extends S ? C : never;
}[ErrorCode];

/** The resources whose `<resource>_not_found` is a 404 code (`agent`, `agent_version`, …). */
export type NotFoundResource =
  ErrorCodeWithStatus<404> extends infer C ? (C extends `${infer R}_not_found` ? R : never) : never;

/** Whether a string is a code of the table (e.g. a problem body's `code` read in a browser). */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, code);
}
