import type { ToolCallPart } from '@agentry/llm';
import { doneAnswer } from './done-tool.ts';
import type { DoomLoopDetector } from './doom-loop.ts';
import type { AgentRunStatus } from './events.ts';
import type { ToolExecutionResult } from './tool-executor.ts';
import { toolError } from './tool-results.ts';

/** What the loop decided for one call before running anything. */
export type CallPlan =
  | { kind: 'execute'; call: ToolCallPart }
  | { kind: 'done'; call: ToolCallPart; answer: string; result: ToolExecutionResult }
  /** Answered by the loop itself; `counts` says whether the result counts towards the tool error limit. */
  | { kind: 'answered'; call: ToolCallPart; result: ToolExecutionResult; counts: boolean; notice?: string };

export interface PlanInput {
  toolNames: ReadonlySet<string>;
  doom: DoomLoopDetector;
  /** Set when the done tool is required. */
  doneToolName?: string;
  toolsDisabled: boolean;
  tokenBudgetExceeded: boolean;
  /** Tool calls the run may still execute. */
  remainingToolCalls: number;
}

export interface StepPlan {
  plans: CallPlan[];
  /** Set when the step must end the run (after its results are recorded). */
  stop?: Extract<AgentRunStatus, 'max_tool_calls' | 'doom_loop' | 'token_budget_exceeded'>;
}

/**
 * Decides, in the model's order, which calls run and which the loop answers itself: disabled
 * tools, the done tool, malformed JSON, unknown tools, limits and repeated calls.
 *
 * @example
 * const { plans, stop } = planToolCalls(calls, { toolNames, doom, toolsDisabled: false, tokenBudgetExceeded: false, remainingToolCalls: 10 });
 */
export function planToolCalls(calls: ToolCallPart[], input: PlanInput): StepPlan {
  const plans: CallPlan[] = [];
  let remaining = input.remainingToolCalls;
  let stop: StepPlan['stop'];
  for (const call of calls) {
    const early = checkCall(call, input);
    if (early) {
      plans.push(early);
      continue;
    }
    const limit = checkLimits(call, input, remaining);
    if (limit) {
      stop ??= limit.stop;
      plans.push(limit.plan);
      continue;
    }
    const verdict = input.doom.check(call);
    if (verdict !== 'run') {
      if (verdict === 'stop') stop ??= 'doom_loop';
      plans.push(repeatedCall(call, input.doom.threshold));
      continue;
    }
    remaining--;
    plans.push({ kind: 'execute', call });
  }
  return { plans, ...(stop ? { stop } : {}) };
}

/** Checks that need no counting: disabled tools, done, broken JSON, unknown names. */
function checkCall(call: ToolCallPart, input: PlanInput): CallPlan | undefined {
  if (input.toolsDisabled) {
    const message = 'Tools are disabled for this answer (tool_choice is "none"). Answer in plain text.';
    return { kind: 'answered', call, result: toolError('tools_disabled', message), counts: true, notice: message };
  }
  if (input.doneToolName !== undefined && call.name === input.doneToolName) return planDone(call);
  if (call.rawArguments !== undefined) {
    const message = 'The tool arguments were not valid JSON. Send one JSON object matching the tool schema.';
    return {
      kind: 'answered',
      call,
      result: toolError('invalid_arguments_json', message, { received: call.rawArguments.slice(0, 500) }),
      counts: true,
    };
  }
  if (!input.toolNames.has(call.name)) {
    const available = [...input.toolNames, ...(input.doneToolName ? [input.doneToolName] : [])];
    const result = toolError('unknown_tool', `There is no tool named "${call.name}".`, { available });
    return { kind: 'answered', call, result, counts: true };
  }
  return undefined;
}

function planDone(call: ToolCallPart): CallPlan {
  const answer = doneAnswer(call);
  if (answer === undefined) {
    const message = 'Call this tool with one argument: {"answer": "<your final answer as a string>"}.';
    return { kind: 'answered', call, result: toolError('invalid_arguments', message), counts: true };
  }
  return { kind: 'done', call, answer, result: { isError: false, output: 'The task is complete.' } };
}

function checkLimits(
  call: ToolCallPart,
  input: PlanInput,
  remaining: number,
): { plan: CallPlan; stop: NonNullable<StepPlan['stop']> } | undefined {
  if (input.tokenBudgetExceeded) {
    const result = toolError('token_budget_exceeded', 'Not run: the token budget of this run is used up.');
    return { plan: { kind: 'answered', call, result, counts: false }, stop: 'token_budget_exceeded' };
  }
  if (remaining <= 0) {
    const result = toolError('tool_call_limit', 'Not run: this run reached its maximum number of tool calls.');
    return { plan: { kind: 'answered', call, result, counts: false }, stop: 'max_tool_calls' };
  }
  return undefined;
}

function repeatedCall(call: ToolCallPart, threshold: number): CallPlan {
  const message = `You called "${call.name}" with the same arguments ${threshold} times; it was not run again because the result will not change. Use the earlier result or try a different approach.`;
  return { kind: 'answered', call, result: toolError('repeated_call', message), counts: false, notice: message };
}
