/**
 * The agent configuration format as types (snake_case keys, as tenants write it), inferred from the
 * JSON Schema in `agent-config-schema.ts` with json-schema-to-ts: the schema is the only place the
 * format is written down, so the types cannot drift from what the loader accepts.
 *
 * Type-only: `import type` the schema, so no bundle that uses these types carries the schema data.
 */
import type { FromSchema } from 'json-schema-to-ts';
import type { agentConfigSchema } from './agent-config-schema.ts';

type Schema = typeof agentConfigSchema;
type Defs = Schema['$defs'];

/**
 * The schema as the types see it. `schemaNode` (a property of a tool's parameters) nests itself
 * through `items`, `properties`, `anyOf`, … without end, which no finite type can spell out: here it
 * is a plain JSON object, and `parametersSchemaIssues` (the loader) is the judge of its contents.
 */
export type TypedConfigSchema = Omit<Schema, '$defs'> & {
  $defs: Omit<Defs, 'schemaNode'> & { schemaNode: { type: 'object' } };
};

/**
 * A config document as written: only `basic_settings` is required, and every key with a default
 * may be left out.
 */
export type AgentConfigDocument = FromSchema<TypedConfigSchema, { keepDefaultedPropertiesOptional: true }>;

/**
 * A validated agent configuration (see `loadAgentConfig`). `action_books` and `tools` are always
 * present after loading, even when the uploaded JSON left them out; other defaults are not filled in.
 */
export type AgentConfig = Omit<AgentConfigDocument, 'action_books' | 'tools'> &
  Required<Pick<AgentConfigDocument, 'action_books' | 'tools'>>;

/** Who the agent is; turned into the first part of the system prompt. */
export type BasicSettings = AgentConfigDocument['basic_settings'];
/** "When <condition>, do <action>", optionally naming the tools the action uses. */
export type ActionBook = NonNullable<AgentConfigDocument['action_books']>[number];
/** An HTTP tool (`endpoint`), or a `client` tool run by the embedding application. */
export type ToolConfig = NonNullable<AgentConfigDocument['tools']>[number];
/** The HTTP request a tool call becomes. Strings may hold placeholders (`{{email}}`, `{email}`). */
export type EndpointConfig = NonNullable<ToolConfig['endpoint']>;
export type HttpMethod = NonNullable<EndpointConfig['method']>;
/** How a tool's response is cut down before the model sees it. */
export type ResponseConfig = NonNullable<ToolConfig['response']>;
/** JSON Schema (safe subset) of a tool's arguments. */
export type ParametersSchema = NonNullable<ToolConfig['parameters']>;
export type JsonType = Defs['jsonType']['enum'][number];
export type ModelConfig = NonNullable<AgentConfigDocument['model']>;
export type ModelProvider = NonNullable<ModelConfig['provider']>;
export type LimitsConfig = NonNullable<AgentConfigDocument['limits']>;
/** A context variable the embedding application passes with each conversation. */
export type ContextVariableConfig = NonNullable<AgentConfigDocument['context']>[number];
export type ContextVariableType = NonNullable<ContextVariableConfig['type']>;
export type WidgetConfig = NonNullable<AgentConfigDocument['widget']>;
/** Which signed end-user claims tools may read (`{{user.x}}`), and whether they may forward the token. */
export type EndUserConfig = NonNullable<AgentConfigDocument['end_user']>;
/** What a message does while the conversation's previous run is active. */
export type BusyPolicy = NonNullable<AgentConfigDocument['busy_policy']>;
export type ToolProtocol = NonNullable<AgentConfigDocument['tool_protocol']>;
/** A signed callback on run events, sent by the webhook dispatcher. */
export type WebhookConfig = NonNullable<AgentConfigDocument['webhooks']>[number];
export type WebhookEventName = WebhookConfig['events'][number];
/** An MCP server whose tools the agent may call as `<name>__<tool>`. */
export type McpServerConfig = NonNullable<AgentConfigDocument['mcp_servers']>[number];
/** A sub-agent offered to the agent as the tool `skill__<name>`. */
export type SkillConfig = NonNullable<AgentConfigDocument['skills']>[number];
/** A tool permission rule: which calls (tool pattern + `when` over the arguments) are allowed, asked about or denied. */
export type PermissionRuleConfig = NonNullable<AgentConfigDocument['permissions']>[number];
/** What a permission rule does with the calls it matches. */
export type PermissionAction = PermissionRuleConfig['action'];
/** A fixed procedure run as a state machine (issue 19). */
export type FlowConfig = NonNullable<AgentConfigDocument['flows']>[number];
export type FlowStepConfig = FlowConfig['steps'][number];
export type FlowSlotConfig = NonNullable<FlowConfig['slots']>[string];
/** The knowledge bases an agent answers from, and how it searches them. */
export type KnowledgeConfig = NonNullable<AgentConfigDocument['knowledge']>;
