/**
 * The agent configuration format, as tenants write it (snake_case keys, seed §5.11). The JSON Schema
 * in `configs/agent-config.schema.json` is the authority; these types mirror it for code.
 */

import type { WebhookConfig } from './webhooks.ts';

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'null';

/** Who the agent is; turned into the first part of the system prompt. */
export interface BasicSettings {
  name: string;
  description?: string;
  background?: string;
  language?: string;
  tone?: string;
  chatbot_id?: string;
  /** Extra free-form rules appended to the system prompt. */
  instructions?: string;
}

/** "When <condition>, do <action>", optionally naming the tools the action uses. */
export interface ActionBook {
  condition: string;
  action: string;
  tools?: string[];
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';

/** The HTTP request a tool call becomes. Strings may hold placeholders (`{{email}}`, `{email}`). */
export interface EndpointConfig {
  url: string;
  method?: HttpMethod;
  headers?: Record<string, string>;
  query_params?: Record<string, string | number | boolean>;
  body?: Record<string, unknown> | unknown[];
  /** Seconds (default: `limits.tool_timeout`, 30). */
  timeout?: number;
}

/** How a tool's response is cut down before the model sees it. */
export interface ResponseConfig {
  max_bytes?: number;
  fields?: string[];
  ephemeral?: number;
}

/** JSON Schema (safe subset) of a tool's arguments. */
export interface ParametersSchema {
  type: 'object';
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties?: boolean;
  description?: string;
  title?: string;
  $defs?: Record<string, Record<string, unknown>>;
}

export interface ToolConfig {
  name: string;
  description: string;
  /** `http` (default) calls `endpoint`; `client` tools are run by the embedding application. */
  type?: 'http' | 'client';
  approval?: 'never' | 'always';
  parameters?: ParametersSchema;
  endpoint?: EndpointConfig;
  response?: ResponseConfig;
  /** Default: true for GET, HEAD, PUT and DELETE. */
  idempotent?: boolean;
  retries?: number;
}

export type ModelProvider = 'openai' | 'anthropic' | 'openai_compatible';

export interface ModelConfig {
  provider?: ModelProvider;
  name?: string;
  temperature?: number;
  max_output_tokens?: number;
  /** Tenant secret holding the agent's own provider API key. */
  api_key_secret?: string;
}

export interface LimitsConfig {
  max_steps?: number;
  max_tool_calls?: number;
  max_tokens?: number;
  /** Seconds. */
  run_timeout?: number;
  /** Seconds; default for tools without `endpoint.timeout`. */
  tool_timeout?: number;
  /** Seconds a run may wait for a person before it times out; unset = the platform's WAITING_RUN_TTL_SECONDS. */
  waiting_timeout?: number;
  /** Runs a conversation may hold queued (waiting to start) before a new message is refused 429 `conversation_queue_full`. */
  max_queued_runs?: number;
}

export type ContextVariableType = 'string' | 'number' | 'integer' | 'boolean';

/** A context variable the embedding application passes with each conversation. */
export interface ContextVariableConfig {
  name: string;
  type?: ContextVariableType;
  required?: boolean;
  description?: string;
  visible_to_model?: boolean;
}

export interface WidgetConfig {
  title?: string;
  greeting?: string;
  colors?: { primary?: string; background?: string; text?: string };
  position?: 'bottom-right' | 'bottom-left';
  suggested_questions?: string[];
  allowed_origins?: string[];
  /** The widget's built-in client tool `browser_js_eval` (sandboxed iframe, 5 s timeout); default false. */
  browser_js_eval?: boolean;
}

export type ToolProtocol = 'native' | 'json' | 'xml';

/** An MCP server whose tools the agent may call as `<name>__<tool>` (seed 003 §5.12). */
export interface McpServerConfig {
  name: string;
  /**
   * `http` = Streamable HTTP (default), `sse` = HTTP+SSE, `stdio` = a server the platform operator
   * defined, named by `server` (a tenant config never gives a command).
   */
  transport?: 'http' | 'sse' | 'stdio';
  /** stdio only: the operator's name for the server (`MCP_STDIO_SERVERS`). */
  server?: string;
  url?: string;
  /** Header name → template; only `{{secrets.X}}` placeholders. */
  headers?: Record<string, string>;
  /** Seconds per request (default `limits.tool_timeout`). */
  timeout?: number;
  enabled?: boolean;
  /** Allow-list of the server's own tool names (without the `server__` prefix); default all. */
  tools?: string[];
  /** Offer `<name>__list_resources` and `<name>__read_resource` (default false). */
  expose_resources?: boolean;
  /** Offer `<name>__list_prompts` and `<name>__get_prompt` (default false). */
  expose_prompts?: boolean;
}

/** A sub-agent offered to the agent as the tool `skill__<name>` (seed 003 §7.8). */
export interface SkillConfig {
  name: string;
  description: string;
  basic_settings: BasicSettings;
  action_books?: ActionBook[];
  tools?: ToolConfig[];
  limits?: LimitsConfig;
  /** Names of the config's `mcp_servers` whose tools the skill may call. */
  mcp_servers?: string[];
  /** Names of other skills of the config this skill may call (at most 2 deep, no cycles). */
  skills?: string[];
}

/**
 * A validated agent configuration (see `loadAgentConfig`). `action_books` and `tools` are always
 * present after loading, even when the uploaded JSON left them out.
 */
/** What a message does while the conversation's previous run is active. */
export type BusyPolicy = 'reject' | 'enqueue' | 'interrupt';

export interface AgentConfig {
  $schema?: string;
  basic_settings: BasicSettings;
  action_books: ActionBook[];
  tools: ToolConfig[];
  model?: ModelConfig;
  limits?: LimitsConfig;
  /** `auto` (default), `none`, `required` or a tool name. */
  tool_choice?: string;
  parallel_tool_calls?: boolean;
  busy_policy?: BusyPolicy;
  require_done_tool?: boolean;
  tool_protocol?: ToolProtocol;
  context?: ContextVariableConfig[];
  widget?: WidgetConfig;
  /** Signed callbacks on run events, sent by the webhook dispatcher (`webhooks.ts`). */
  webhooks?: WebhookConfig[];
  mcp_servers?: McpServerConfig[];
  skills?: SkillConfig[];
}
