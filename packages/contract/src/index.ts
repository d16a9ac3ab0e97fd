/**
 * The API's contract with its clients: the plain values and types the server, the dashboard and
 * the widget share. Browser code imports it, so it holds no server code and has no runtime
 * dependencies (json-schema-to-ts only infers types). The agent config schema is runtime data for
 * the server: browser code imports only its types. The request and response shapes (zod schemas and
 * their types) are `@agentry/contract/schemas`.
 */
export type {
  ActionBook,
  AgentConfig,
  AgentConfigDocument,
  BasicSettings,
  BusyPolicy,
  ContextVariableConfig,
  ContextVariableType,
  EndpointConfig,
  EndUserConfig,
  FlowConfig,
  FlowSlotConfig,
  FlowStepConfig,
  HandoffConfig,
  HttpMethod,
  JsonType,
  KnowledgeConfig,
  LimitsConfig,
  McpServerConfig,
  ModelConfig,
  ModelProvider,
  ParametersSchema,
  PermissionAction,
  PermissionRuleConfig,
  ResponseConfig,
  SkillConfig,
  ToolConfig,
  ToolProtocol,
  WebhookConfig,
  WebhookEventName,
  WidgetConfig,
} from './agent-config.ts';
export { agentConfigSchema } from './agent-config-schema.ts';
export {
  ERROR_STATUS,
  type ErrorCode,
  type ErrorCodeWithStatus,
  type ErrorStatus,
  INTERNAL_ERROR_STATUS,
  type InternalErrorCode,
  isErrorCode,
  type NotFoundResource,
  ROUTE_ERROR_STATUS,
  type RouteErrorCode,
} from './error-codes.ts';
export {
  KNOWLEDGE_DOCUMENT_FORMATS,
  KNOWLEDGE_FORMAT_BY_EXTENSION,
  KNOWLEDGE_FORMAT_BY_MEDIA_TYPE,
  type KnowledgeDocumentFormat,
} from './knowledge-formats.ts';
export { MAX_MESSAGE_CHARS, MAX_SECRET_BYTES, PASSWORD_MAX_LENGTH, PG_INTEGER_MAX } from './limits.ts';
export type { FieldIssue, Problem } from './problem.ts';
export { type ClientProblem, ProblemError } from './problem-error.ts';
export { ROLES, type Role } from './roles.ts';
export { FINAL_RUN_STATUSES, isFinalRunStatus, RUN_STATUSES, type RunStatus } from './run-status.ts';
export { ALL_SCOPES, isScope, SCOPE_RESOURCES, type Scope, type ScopeResource } from './scopes.ts';
export { WIDGET_DEFAULT_COLORS } from './widget-defaults.ts';
