/**
 * The API's contract with its clients: the plain values and types the server, the dashboard and
 * the widget share. Browser code imports it, so it holds no server code and has no runtime
 * dependencies (json-schema-to-ts only infers types). The agent config schema is runtime data for
 * the server: browser code imports only its types.
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
  HttpMethod,
  JsonType,
  LimitsConfig,
  McpServerConfig,
  ModelConfig,
  ModelProvider,
  ParametersSchema,
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
  isErrorCode,
  type NotFoundResource,
} from './error-codes.ts';
export type { FieldIssue, Problem } from './problem.ts';
export { FINAL_RUN_STATUSES, isFinalRunStatus, RUN_STATUSES, type RunStatus } from './run-status.ts';
export { ALL_SCOPES, isScope, SCOPE_RESOURCES, type Scope, type ScopeResource } from './scopes.ts';
