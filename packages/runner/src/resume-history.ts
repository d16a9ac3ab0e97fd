import type { AgentRunResult, PendingInput, ToolExecutor } from '@agentry/agent';
import type { CompiledAgent } from '@agentry/config';
import type { Run } from '@agentry/db';
import type { Message, ToolCallPart, ToolResultPart } from '@agentry/llm';
import { unansweredInput } from './pending-input.ts';
import type { ProcessorContext } from './processor-context.ts';
import type { WriteBehind } from './write-behind.ts';

/**
 * The history to continue from. A previous attempt may have stopped after the model's message
 * but before its tool results were stored: those calls are settled first (replayed from their
 * records, or reported unknown), without asking the model again. `done` when the final answer is
 * stored already; the pending input when people have not answered yet.
 */
export async function resumeHistory(
  ctx: ProcessorContext,
  run: Run,
  writes: WriteBehind,
  tools: ToolExecutor,
  signal: AbortSignal,
  agent: CompiledAgent,
  history: Message[],
): Promise<Message[] | 'done' | { pending: PendingInput[] }> {
  const last = history.at(-1);
  if (last?.role !== 'assistant') return history;
  const pending = last.content.filter((p): p is ToolCallPart => p.type === 'tool_call');
  if (pending.length === 0) return 'done'; // the final answer is stored; only the status was not
  // A person has not answered yet (the job was run again early): keep waiting.
  const unanswered = await unansweredInput(ctx.deps.db, agent, run, pending);
  if (unanswered.length > 0) return { pending: unanswered };
  const results: ToolResultPart[] = [];
  for (const call of pending) {
    const result = await tools.execute(call, { signal });
    results.push({
      type: 'tool_result',
      toolCallId: call.id,
      toolName: call.name,
      output: result.output,
      ...(result.isError ? { isError: true } : {}),
    });
    await ctx.publish(run.id, {
      type: 'tool-result',
      toolCallId: call.id,
      toolName: call.name,
      output: result.output,
      isError: result.isError,
      ...(result.meta?.cached === true ? { cached: true } : {}),
      resumed: true,
    });
  }
  const message: Message = { role: 'tool', content: results };
  writes.defer({ messages: [message] });
  await ctx.checkpoint(run, writes);
  return [...history, message];
}

/** The result of an attempt that had nothing left to run: the final answer was stored before. */
export function doneResult(): AgentRunResult {
  return {
    status: 'completed',
    messages: [],
    steps: [],
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    toolCallCount: 0,
    durationMs: 0,
  };
}

/** The result of an attempt that found people had not answered yet: the run waits again. */
export function waitingResult(pending: PendingInput[]): AgentRunResult {
  return { ...doneResult(), status: 'waiting', pending };
}
