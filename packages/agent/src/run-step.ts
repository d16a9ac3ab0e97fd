import { addUsage, type Message, toolCallsOf } from '@agentry/llm';
import { buildRequest } from './build-request.ts';
import { applyEphemeral } from './ephemeral.ts';
import type { PendingInput, StepRecord } from './events.ts';
import { handleAnswer } from './handle-answer.ts';
import { handleToolCalls } from './handle-tool-calls.ts';
import { type LoopState, type Stop, tokenBudgetExceeded } from './loop-state.ts';
import { maybeCompact } from './maybe-compact.ts';
import { streamModelStep } from './model-step.ts';

/**
 * One step: check the budget, compact if needed, call the model, handle its tool calls or answer,
 * then commit the step (transcript, prompt, `onStep`, `step-finished`). Returns how the run ends
 * when it ends here.
 *
 * @example
 * const stop = await runStep(state, 0);
 */
export async function runStep(state: LoopState, index: number): Promise<Stop | undefined> {
  const { options } = state;
  if (tokenBudgetExceeded(state)) {
    return { status: 'token_budget_exceeded', reason: `The run used its token budget of ${options.maxTokens} tokens` };
  }
  await maybeCompact(state, index);
  await state.emit({ type: 'step-started', step: index });
  const messages = applyEphemeral(state.prompt.messages, options.ephemeralTools);
  const request = buildRequest(options, state.definitions, state.toolChoice, messages);
  state.prompt.markRequest();
  const { response, latencyMs, timeToFirstEventMs } = await streamModelStep(
    options.model,
    request,
    state.signal,
    state.emit,
    index,
  );
  state.usage = addUsage(state.usage, response.usage);
  state.prompt.recordUsage(response.usage);
  const assistant: Message = { role: 'assistant', content: response.content };
  // Persisted before any tool runs: a resumed run replays this output instead of asking again.
  await options.onModelResponse?.(assistant, index);
  const calls = toolCallsOf(assistant);
  const pending = calls.length > 0 && options.pendingInput ? await options.pendingInput(calls) : [];
  if (pending.length > 0) return pause(state, index, assistant, response, latencyMs, pending);
  const outcome =
    calls.length > 0 ? await handleToolCalls(state, index, calls) : await handleAnswer(state, index, assistant);
  const record: StepRecord = {
    index,
    modelLatencyMs: latencyMs,
    ...(timeToFirstEventMs === undefined ? {} : { timeToFirstEventMs }),
    usage: response.usage,
    finishReason: response.finishReason,
    toolCalls: outcome.records,
    executedToolCalls: outcome.executed,
  };
  await commitStep(state, [assistant, ...outcome.messages], record);
  return outcome.stop;
}

/** Stops before running any call of the step: some wait for a person. */
async function pause(
  state: LoopState,
  index: number,
  assistant: Message,
  response: { usage: StepRecord['usage']; finishReason: string },
  latencyMs: number,
  pending: PendingInput[],
): Promise<Stop> {
  const record: StepRecord = {
    index,
    modelLatencyMs: latencyMs,
    usage: response.usage,
    finishReason: response.finishReason,
    toolCalls: [],
    executedToolCalls: 0,
  };
  await commitStep(state, [assistant], record);
  await state.emit({ type: 'waiting', step: index, pending });
  state.pending = pending;
  return { status: 'waiting', reason: 'Waiting for a person to answer a tool call' };
}

async function commitStep(state: LoopState, messages: Message[], record: StepRecord): Promise<void> {
  state.prompt.append(messages);
  state.produced.push(...messages);
  state.steps.push(record);
  await state.options.onStep?.(messages, record);
  await state.emit({ type: 'step-finished', step: record });
}
