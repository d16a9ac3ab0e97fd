import type {
  AgentConfig,
  BusyPolicy,
  ContextVariableConfig,
  EndUserConfig,
  HttpMethod,
  ModelProvider,
  ToolProtocol,
  WidgetConfig,
} from '@agentry/contract';
import type { FieldIssue } from '@agentry/errors';
import type { ToolChoice, ToolDefinition } from '@agentry/llm';
import type { PermissionDecision } from './permissions.ts';

/**
 * What a tool call may draw on besides the model's arguments. Model arguments can never reach
 * these: templates address them as `{{context.x}}` and `{{secrets.X}}`.
 */
export interface ToolContext {
  /** System variables (tenantId, agentId, conversationId alias dialogId, chatbotId, userId) + declared ones. */
  context: Record<string, unknown>;
  /** Tenant secrets by name; never shown to the model, masked in traces. */
  secrets: Record<string, string>;
  /** The verified end user of the run's message (`{{user.x}}`); none for anonymous visitors and callers without a token. */
  user?: EndUserValues;
}

/**
 * What a verified end-user token gives a run's tools: the agent's declared claims and, when it
 * forwards it, the token. Never shown to the model, masked in traces like secrets.
 */
export interface EndUserValues {
  /** The declared claims the token holds (strings, numbers and booleans only). */
  claims: Record<string, string | number | boolean>;
  /** The verified token itself (only when `end_user.forward_token` is true). */
  token?: string;
  /** The token's `exp` (Unix seconds): from then on no value is used (the tool asks to sign in). */
  expiresAt: number;
}

/** The exact HTTP request one tool call sends. */
export interface RenderedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export type ArgumentCheck = { ok: true; value: Record<string, unknown> } | { ok: false; issues: FieldIssue[] };

/** One tool, ready to run: schema validator and request templates compiled once per config. */
export interface CompiledTool {
  name: string;
  kind: 'http' | 'client';
  definition: ToolDefinition;
  method: HttpMethod;
  timeoutMs: number;
  /** Safe to send twice (re-sent with the same Idempotency-Key when a crash left its outcome unknown). */
  idempotent: boolean;
  retries: number;
  /** `cache`: identical requests within `ttlSeconds` reuse the stored 2xx response (reads only; the loader checks). */
  cache?: { ttlSeconds: number };
  approval: 'never' | 'always';
  response: { maxBytes: number; fields?: string[]; ephemeral?: number };
  /** Names of the tenant secrets the request reads (`{{secrets.X}}`). */
  secretNames: string[];
  /** The end user's values the request reads (`{{user.email}}` → `email`; `token`): without a verified user it is not sent. */
  userValues: string[];
  /** Checks (and fills defaults of) the model's arguments against the tool's `parameters`. */
  validateArguments(args: unknown): ArgumentCheck;
  /**
   * Builds the request for validated arguments. Throws an `AppError` (`invalid_arguments`,
   * `missing_secret`, `missing_context`, `sign_in_required`) when the values cannot form a safe request.
   */
  render(args: Record<string, unknown>, ctx: ToolContext): RenderedRequest;
}

/** An MCP server of the agent, ready to connect (seed 003 §5.12). */
export interface CompiledMcpServer {
  name: string;
  transport: 'http' | 'sse' | 'stdio';
  /** stdio: the operator's name for the server; connecting resolves it against the operator's definitions. */
  stdioServer?: string;
  enabled: boolean;
  /** Per request: connecting, discovery and each tool call. */
  timeoutMs: number;
  /** The server's own tool names the agent may use; undefined = all. */
  allowTools?: string[];
  /** Offer the resource tools (`server__list_resources`, `server__read_resource`). */
  exposeResources: boolean;
  /** Offer the prompt tools (`server__list_prompts`, `server__get_prompt`). */
  exposePrompts: boolean;
  /** Tenant secrets the URL and headers read. */
  secretNames: string[];
  /** URL and headers with secrets filled in (empty for stdio). Throws `missing_secret`. */
  render(secrets: Record<string, string>): { url: string; headers: Record<string, string> };
}

/** A sub-agent offered to the model as the tool `skill__<name>`. */
export interface CompiledSkill {
  name: string;
  /** `skill__<name>`. */
  toolName: string;
  definition: ToolDefinition;
  /**
   * The skill as an agent of its own (settings, action books, tools, limits, the MCP servers it
   * names; the parent's context variables). Its `skills` are stand-ins for name checks only: the
   * skills it may call are `skills` below.
   */
  agent: CompiledAgent;
  /** The other skills of the root config this skill may call (resolved by name; at most 2 deep). */
  skills: CompiledSkill[];
}

export interface CompiledLimits {
  maxSteps: number;
  maxToolCalls: number;
  maxTokens: number;
  runTimeoutMs: number;
  toolTimeoutMs: number;
  /** Queued runs a conversation may hold (`max_queued_runs`); checked when a message is posted. */
  maxQueuedRuns: number;
}

/** An agent configuration turned into everything a run needs; built once per config hash. */
export interface CompiledAgent {
  hash: string;
  config: AgentConfig;
  systemPrompt: string;
  tools: CompiledTool[];
  toolDefinitions: ToolDefinition[];
  model: {
    provider?: ModelProvider;
    name?: string;
    temperature?: number;
    maxOutputTokens?: number;
    /** Tenant secret holding the agent's own provider API key. */
    apiKeySecret?: string;
  };
  /** Every tenant secret the agent reads (tool templates and the model key), sorted. */
  requiredSecrets: string[];
  limits: CompiledLimits;
  toolChoice: ToolChoice;
  parallelToolCalls: boolean;
  busyPolicy: BusyPolicy;
  requireDoneTool: boolean;
  toolProtocol: ToolProtocol;
  /** Declared context variables (system ones excluded). */
  contextVariables: ContextVariableConfig[];
  /** The signed end-user claims tools may read (`end_user`); none: no tool reads `{{user.…}}`. */
  endUser?: EndUserConfig;
  widget?: WidgetConfig;
  /** Empty when the config declares none. */
  mcpServers: CompiledMcpServer[];
  /** Empty when the config declares none. */
  skills: CompiledSkill[];
  /**
   * How one call of a tool goes: the first `permissions` rule matching its name and arguments, or
   * else the tool's own `approval` (always → ask, never or none → allow). HTTP and client tools'
   * `when` sees the arguments with their declared defaults filled in.
   */
  decidePermission(name: string, args: unknown): PermissionDecision;
}
