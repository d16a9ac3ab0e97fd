import type { Message, ToolResultPart } from '@agentry/llm';

/** The model sees each flow as the tool `flow__<name>`; flow turns are stored under the same name. */
export const FLOW_TOOL_PREFIX = 'flow__';

/**
 * How a flow stands: `active` while it holds the conversation; `ended` (its end step), `exited` (the
 * user left it), `failed` (it gave up) and `handoff` (passed to a person) let the model answer again.
 */
export type FlowStatus = 'active' | 'ended' | 'exited' | 'failed' | 'handoff';

/** What the flow waits for from the user's next message. */
export type FlowAwaiting = { kind: 'slot'; slot: string } | { kind: 'confirm' };

/**
 * A conversation's flow state. It is stored in the transcript itself, as the result of a
 * `flow__<name>` tool call after every flow turn, so it is written in the same transaction as the
 * run's messages and status: a crashed turn leaves the state it started from.
 */
export interface FlowState {
  flow: string;
  status: FlowStatus;
  /** The step the flow is at (while active). */
  step?: string;
  /** Values collected so far (slots, and values saved from tool results). */
  slots: Record<string, unknown>;
  /** Failed answers to the current question. */
  attempts: number;
  awaiting?: FlowAwaiting;
  /** Answers offered as buttons (a confirmation, a slot with an enum). */
  quick_replies?: string[];
  /** The last tool step's result: what branches and templates read as `result`. */
  result?: unknown;
}

/**
 * The tool name a flow is offered and stored under.
 *
 * @example
 * flowToolName('leave_request'); // 'flow__leave_request'
 */
export function flowToolName(flow: string): string {
  return `${FLOW_TOOL_PREFIX}${flow}`;
}

/** The flow's name when `toolName` is a flow's tool name. */
export function flowNameOf(toolName: string): string | undefined {
  return toolName.startsWith(FLOW_TOOL_PREFIX) ? toolName.slice(FLOW_TOOL_PREFIX.length) : undefined;
}

/**
 * The latest flow state in a transcript (the last `flow__*` tool result), if any.
 *
 * @example
 * const state = latestFlowState(history);
 * if (state?.status === 'active') { ... }
 */
export function latestFlowState(history: readonly Message[]): FlowState | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i]!;
    if (message.role !== 'tool') continue;
    for (let j = message.content.length - 1; j >= 0; j--) {
      const part = message.content[j]!;
      if (part.type === 'tool_result' && flowNameOf(part.toolName) !== undefined) return readState(part);
    }
  }
  return undefined;
}

/** The state a flow result holds; a malformed one (edited by hand) reads as no active flow. */
function readState(part: ToolResultPart): FlowState | undefined {
  const output = part.output as Partial<FlowState> | null;
  if (part.isError || !output || typeof output !== 'object') return undefined;
  if (typeof output.flow !== 'string' || typeof output.status !== 'string') return undefined;
  return {
    flow: output.flow,
    status: output.status,
    ...(typeof output.step === 'string' ? { step: output.step } : {}),
    slots: output.slots && typeof output.slots === 'object' ? { ...output.slots } : {},
    attempts: typeof output.attempts === 'number' ? output.attempts : 0,
    ...(output.awaiting ? { awaiting: output.awaiting } : {}),
    ...(Array.isArray(output.quick_replies) ? { quick_replies: output.quick_replies } : {}),
    ...(output.result !== undefined ? { result: output.result } : {}),
  };
}
