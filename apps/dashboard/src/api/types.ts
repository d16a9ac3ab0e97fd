import type { AgentConfig, RunStatus } from '@agentry/contract';

/** JSON shapes of the API (see apps/api/src/http/views.ts). */
export interface Agent {
  id: string;
  name: string;
  published_version: number | null;
  latest_version: number;
  created_at: string;
  updated_at: string;
  /** Runs started in the last 24 hours (in the agent list only). */
  runs_24h?: number;
}

export interface AgentVersion {
  agent_id: string;
  version: number;
  content_hash: string;
  published: boolean;
  created_at: string;
  config?: AgentConfig;
}

export interface ConfigChange {
  path: string;
  op: 'add' | 'remove' | 'replace';
  before?: unknown;
  after?: unknown;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface Conversation {
  id: string;
  agent_id: string;
  agent_version: number | null;
  context: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  /** In list answers: the latest run's status (null without runs) and whether any run had an error. */
  last_run_status?: RunStatus | null;
  has_error?: boolean;
}

export type MessagePart =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_result'; tool_call_id: string; name: string; output: unknown; is_error: boolean };

export interface Message {
  id: string;
  seq: number;
  role: 'user' | 'assistant' | 'tool' | 'system';
  run_id: string | null;
  content: MessagePart[];
  created_at: string;
}

export interface ConversationWithMessages extends Conversation {
  messages: Message[];
}

export interface RunStep {
  index: number;
  modelLatencyMs: number;
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number };
  finishReason: string;
  toolCalls: Array<{ id: string; name: string; durationMs: number; isError: boolean; errorCode?: string }>;
}

export interface Run {
  id: string;
  conversation_id: string;
  agent_id: string;
  agent_version: number;
  status: RunStatus;
  reply: string | null;
  tool_calls: Array<{ id: string; name: string; arguments: unknown; output: unknown; is_error: boolean }>;
  meta: {
    input_tokens: number;
    output_tokens: number;
    total_tokens: number;
    tool_call_count: number;
    steps: number;
    latency_ms: number | null;
  };
  steps: RunStep[];
  error: { code?: string; message?: string } | null;
}

export interface ValidateResult {
  valid: true;
  summary?: unknown;
}

export interface ToolTestResult {
  /** `body` is the rendered request body text, or null. */
  request: { method: string; url: string; headers: Record<string, string>; body?: string | null };
  response?: { status: number | null; duration_ms: number; output: unknown; is_error: boolean; error_code?: string };
}

/** A run's status, from the API contract. */
export type { RunStatus };

/** A tool call that waits for a person (the run's `waiting` event). */
export interface PendingInput {
  tool_call_id: string;
  name: string;
  arguments: unknown;
  kind: 'client' | 'approval';
}

/** One answer of `POST /v1/runs/{id}/tool-results`. */
export type ToolAnswer =
  | { tool_call_id: string; decision: 'approve' | 'decline' }
  | { tool_call_id: string; output: unknown; is_error?: boolean };
