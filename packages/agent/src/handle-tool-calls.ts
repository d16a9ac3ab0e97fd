import type { Message, ToolCallPart } from '@agentry/llm';
import { nextToolChoice } from './build-request.ts';
import type { ToolCallRecord } from './events.ts';
import { type LoopState, type Stop, tokenBudgetExceeded } from './loop-state.ts';
import { type CallPlan, planToolCalls } from './plan-tool-calls.ts';
import { runToolCalls, type ToolRun } from './run-tool-calls.ts';

/** What a step adds after the assistant message, and whether the run ends with it. */
export interface StepOutcome {
  messages: Message[];
  records: ToolCallRecord[];
  executed: number;
  stop?: Stop;
}

/**
 * Plans, runs and records the tool calls of one step: one tool message with every result in the
 * model's order (so the transcript stays valid even when the run ends here), then the done answer
 * if the model finished.
 *
 * @example
 * const outcome = await handleToolCalls(state, 0, toolCallsOf(assistant));
 */
export async function handleToolCalls(state: LoopState, step: number, calls: ToolCallPart[]): Promise<StepOutcome> {
  for (const toolCall of calls) await state.emit({ type: 'tool-call', step, toolCall });
  const { plans, stop: planStop } = planToolCalls(calls, {
    toolNames: state.toolNames,
    doom: state.doom,
    ...(state.doneToolName ? { doneToolName: state.doneToolName } : {}),
    toolsDisabled: state.toolChoice === 'none',
    tokenBudgetExceeded: tokenBudgetExceeded(state),
    remainingToolCalls: (state.options.maxToolCalls ?? Number.POSITIVE_INFINITY) - state.toolCallCount,
  });
  await emitNotices(state, step, plans);
  const runs = await runToolCalls(plans, {
    tools: state.options.tools,
    signal: state.signal,
    emit: state.emit,
    step,
    parallel: state.options.parallelToolCalls !== false,
    ...(state.options.toolTimeoutMs !== undefined ? { toolTimeoutMs: state.options.toolTimeoutMs } : {}),
  });
  const executed = plans.filter((plan) => plan.kind === 'execute').length;
  state.toolCallCount += executed;
  state.toolChoice = nextToolChoice(state.toolChoice, executed > 0, state.options.resetToolChoice !== false);
  const messages: Message[] = [{ role: 'tool', content: runs.map((run) => run.part) }];
  const done = plans.find((plan) => plan.kind === 'done');
  if (done) {
    state.finalText = done.answer;
    // The answer as plain assistant text too, so the next turn's history reads naturally.
    messages.push({ role: 'assistant', content: [{ type: 'text', text: done.answer }] });
  }
  const ended = done !== undefined || runs.some((run) => run.endsRun);
  const stop = planStop
    ? limitStop(planStop, state)
    : ended
      ? { status: 'completed' as const }
      : errorLimitStop(state, runs);
  return { messages, records: runs.map((run) => run.record), executed, ...(stop ? { stop } : {}) };
}

async function emitNotices(state: LoopState, step: number, plans: CallPlan[]): Promise<void> {
  for (const plan of plans) {
    if (plan.kind !== 'answered' || plan.notice === undefined) continue;
    const kind = plan.result.errorCode === 'tools_disabled' ? 'tools-disabled' : 'doom-loop';
    await state.emit({ type: 'notice', step, kind, message: plan.notice });
  }
}

function limitStop(status: NonNullable<ReturnType<typeof planToolCalls>['stop']>, state: LoopState): Stop {
  if (status === 'max_tool_calls') {
    return { status, reason: `The run reached its limit of ${state.options.maxToolCalls} tool calls` };
  }
  if (status === 'token_budget_exceeded') {
    return { status, reason: `The run used its token budget of ${state.options.maxTokens} tokens` };
  }
  return { status, reason: 'The model kept repeating the same tool call after being told it would not run again' };
}

/** Counts consecutive error results in the model's order; loop notices about limits do not count. */
function errorLimitStop(state: LoopState, runs: ToolRun[]): Stop | undefined {
  for (const run of runs) {
    if (run.plan.kind === 'answered' && !run.plan.counts) continue;
    state.consecutiveToolErrors = run.part.isError ? state.consecutiveToolErrors + 1 : 0;
  }
  const max = state.options.maxToolErrors ?? 5;
  if (state.consecutiveToolErrors < max) return undefined;
  return { status: 'tool_error_limit', reason: `${state.consecutiveToolErrors} tool calls in a row failed` };
}
