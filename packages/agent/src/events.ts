import type { ToolCallPart, Usage } from '@agentry/llm';

/** A record of one model step, for traces and the run row. */
export interface StepRecord {
  index: number;
  modelLatencyMs: number;
  usage: Usage;
  finishReason: string;
  toolCalls: Array<{ id: string; name: string; durationMs: number; isError: boolean; errorCode?: string }>;
}

/** Events emitted while a run goes; the same stream feeds SSE, storage and the dashboard. */
export type AgentEvent =
  | { type: 'run-started' }
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
      durationMs: number;
    }
  | { type: 'step-finished'; step: StepRecord }
  | { type: 'run-finished'; status: AgentRunStatus; reason?: string; usage: Usage }
  | { type: 'run-failed'; error: { code: string; message: string } };

export type AgentRunStatus = 'completed' | 'max_steps' | 'failed' | 'cancelled';

/** Receives events; may be async (the loop awaits it so ordering is preserved). */
export type EventSink = (event: AgentEvent) => void | Promise<void>;
