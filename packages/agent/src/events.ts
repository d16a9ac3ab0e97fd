import type { ToolCallPart, Usage } from '@agentry/llm';

/** Facts about one tool call of a step, for traces and the run row. */
export interface ToolCallRecord {
  id: string;
  name: string;
  durationMs: number;
  isError: boolean;
  errorCode?: string;
  /** The result is a stored response of a tool with `cache` (no request was sent). */
  cached?: true;
}

/** A record of one model step, for traces and the run row. */
export interface StepRecord {
  index: number;
  /** Wall time of the model call, from request to the finish event. */
  modelLatencyMs: number;
  /** Time until the first streamed event; absent when the stream produced none before finishing. */
  timeToFirstEventMs?: number;
  usage: Usage;
  finishReason: string;
  /** Every call the model made this step, including those the loop answered itself. */
  toolCalls: ToolCallRecord[];
  /** Calls actually executed this step (what `maxToolCalls` counts). */
  executedToolCalls: number;
}

/**
 * How a run ended. Limits end a run with their own status, never with an exception:
 * `max_steps`, `max_tool_calls`, `token_budget_exceeded`, `timed_out`, `tool_error_limit`
 * (too many consecutive tool errors), `doom_loop` (the same call kept being repeated) and
 * `done_not_called` (the done tool was required and the model kept answering without it).
 */
export type AgentRunStatus =
  | 'completed'
  | 'max_steps'
  | 'max_tool_calls'
  | 'token_budget_exceeded'
  | 'timed_out'
  | 'tool_error_limit'
  | 'doom_loop'
  | 'done_not_called'
  | 'failed'
  | 'cancelled'
  | 'waiting';

/** A tool call that waits for a person: a client tool to run in the browser, or an approval. */
export interface PendingInput {
  tool_call_id: string;
  name: string;
  arguments: unknown;
  kind: 'client' | 'approval';
}

/** What a flow did, in a `flow` event. */
export type FlowAction = 'started' | 'step' | 'slot' | 'reask' | 'ended' | 'exited' | 'failed' | 'handoff';

/** Why the loop said something to the model on its own. */
export type NoticeKind = 'done-nudge' | 'doom-loop' | 'tools-disabled' | 'compaction-failed';

/** The part of each event that depends on the event type. */
export type AgentEventBody =
  | { type: 'run-started'; provider: string; modelId: string; tools: string[] }
  | { type: 'step-started'; step: number }
  | { type: 'text-delta'; step: number; delta: string }
  | { type: 'reasoning-delta'; step: number; delta: string }
  | { type: 'tool-call'; step: number; toolCall: ToolCallPart }
  | {
      type: 'tool-result';
      step: number;
      toolCallId: string;
      toolName: string;
      output: unknown;
      isError: boolean;
      errorCode?: string;
      /** A stored response of a tool with `cache` (its result's `meta.cached`): no request was sent. */
      cached?: true;
      durationMs: number;
    }
  | { type: 'step-finished'; step: StepRecord }
  | { type: 'notice'; step: number; kind: NoticeKind; message: string }
  /** A flow turn (issue 19): started, moved to a step, filled a slot, asked again, or ended. */
  | {
      type: 'flow';
      step: number;
      flow: string;
      action: FlowAction;
      stepId?: string;
      slot?: string;
      /** Answers the widget offers as buttons under the flow's question. */
      quickReplies?: string[];
    }
  | {
      type: 'compaction';
      step: number;
      /** The summary that replaced the older messages in the prompt (the stored transcript keeps them). */
      summary: string;
      compactedMessages: number;
      keptMessages: number;
      estimatedTokens: number;
      usage: Usage;
      durationMs: number;
    }
  /** Reserved for approval and client-side tools: the run pauses until someone answers. */
  | { type: 'waiting'; step: number; pending: PendingInput[] }
  | {
      type: 'run-finished';
      status: AgentRunStatus;
      reason?: string;
      usage: Usage;
      finalText?: string;
      durationMs: number;
    }
  | { type: 'run-cancelled'; reason: string; usage: Usage; durationMs: number }
  | { type: 'run-failed'; error: { code: string; message: string }; usage: Usage; durationMs: number };

/** Fields every event carries: order, time and the trace it belongs to. */
export interface AgentEventMeta {
  /** 0, 1, 2… in emission order within the run. */
  seq: number;
  /** Epoch milliseconds. */
  at: number;
  traceId?: string;
}

/**
 * Events emitted while a run goes; one union feeds SSE, storage and the dashboard.
 *
 * @example
 * const onEvent = (e: AgentEvent) => { if (e.type === 'text-delta') process.stdout.write(e.delta); };
 */
export type AgentEvent = AgentEventBody & AgentEventMeta;

export type AgentEventType = AgentEvent['type'];

/** Receives events; may be async (the loop awaits it so ordering is preserved). */
export type EventSink = (event: AgentEvent) => void | Promise<void>;
