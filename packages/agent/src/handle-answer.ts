import { type Message, textOf } from '@agentry/llm';
import { doneNudgeMessage } from './done-tool.ts';
import type { StepOutcome } from './handle-tool-calls.ts';
import type { LoopState } from './loop-state.ts';

/**
 * A step without tool calls: the final answer, unless the done tool is required, in which case the
 * model is nudged (a bounded number of times) to call it.
 *
 * @example
 * const outcome = await handleAnswer(state, 2, assistant);
 */
export async function handleAnswer(state: LoopState, step: number, assistant: Message): Promise<StepOutcome> {
  const text = textOf(assistant);
  const none = { records: [], executed: 0 };
  if (state.doneToolName === undefined) {
    state.finalText = text;
    return { ...none, messages: [], stop: { status: 'completed' } };
  }
  if (state.doneNudges < (state.options.maxDoneNudges ?? 2)) {
    state.doneNudges++;
    const nudge = doneNudgeMessage(state.doneToolName);
    await state.emit({ type: 'notice', step, kind: 'done-nudge', message: textOf(nudge) });
    return { ...none, messages: [nudge] };
  }
  if (text) state.finalText = text;
  const reason = `The model answered ${state.doneNudges + 1} times without calling the required "${state.doneToolName}" tool`;
  return { ...none, messages: [], stop: { status: 'done_not_called', reason } };
}
