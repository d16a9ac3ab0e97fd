// The config format's types are inferred from its schema in @agentry/contract; re-exported for the server.
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
} from '@agentry/contract';
export { canonicalJson, contentHash } from './canonical-hash.ts';
export { compileAgent } from './compile-agent.ts';
export { defaultSignInMessage } from './compile-tool.ts';
export type {
  ArgumentCheck,
  CompiledAgent,
  CompiledLimits,
  CompiledMcpServer,
  CompiledSkill,
  CompiledTool,
  EndUserValues,
  RenderedRequest,
  ToolContext,
} from './compiled-agent.ts';
export { agentConfigSchema, schemaNodeIssues } from './config-schema.ts';
export { contextIssues, modelVisibleContext, reservedContextIssues } from './context-values.ts';
export { reservedContextNames, systemContextVariables, withContextAliases } from './context-variables.ts';
export { defaults } from './defaults.ts';
export { endUserValues, MAX_END_USER_CLAIM_CHARS, MAX_END_USER_TOKEN_CHARS } from './end-user-values.ts';
export { headerNameProblem } from './header-rules.ts';
export { readablePath } from './json-pointer.ts';
export { KNOWLEDGE_TOOL_NAME } from './knowledge-checks.ts';
export { linearPatternError } from './linear-regexp.ts';
export { checkAgentConfig, loadAgentConfig } from './load-agent-config.ts';
export { MIN_MASKED_CLAIM_CHARS, maskedValues, maskSecrets } from './mask-secrets.ts';
export {
  MCP_PROMPT_TOOLS,
  MCP_RESOURCE_TOOLS,
  MCP_TOOL_SEPARATOR,
  mcpToolName,
  SKILL_TOOL_PREFIX,
  stdioServerIssues,
} from './mcp-servers.ts';
export { externalParametersSchema } from './mcp-tool-schema.ts';
export { type ArgumentsValidator, argumentsValidator } from './parameters-validator.ts';
export {
  compilePermissions,
  DEFAULT_DENY_MESSAGE,
  type MatchedRule,
  type PermissionDecider,
  type PermissionDecision,
  patternCanMatchPrefixed,
  toolPatternMatches,
} from './permissions.ts';
export { MAX_SKILL_DEPTH, skillToolName } from './skills.ts';
export { buildSystemPrompt } from './system-prompt.ts';
export { type CompiledTemplate, compileTemplate, type TemplateView } from './template.ts';
export { fillWebhookHeaders, WEBHOOK_EVENTS, webhookHeaderSecrets } from './webhooks.ts';
