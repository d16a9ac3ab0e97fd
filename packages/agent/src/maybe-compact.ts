import { addUsage } from '@agentry/llm';
import { compactMessages, needsCompaction } from './compaction.ts';
import { applyEphemeral } from './ephemeral.ts';
import type { LoopState } from './loop-state.ts';

/**
 * Summarises the older prompt history when the estimated prompt nears the context window. A failed
 * summary is reported and the run goes on uncompacted (the next call may still fit); cancellation
 * propagates.
 *
 * @example
 * await maybeCompact(state, step);
 */
export async function maybeCompact(state: LoopState, step: number): Promise<void> {
  const options = state.options.compaction;
  if (!options) return;
  const estimatedTokens = state.prompt.estimateTokens(state.options.system);
  if (!needsCompaction(estimatedTokens, options)) return;
  const started = performance.now();
  try {
    const view = applyEphemeral(state.prompt.messages, state.options.ephemeralTools);
    const outcome = await compactMessages(view, options, state.options.model, state.signal);
    if (!outcome) return;
    state.prompt.replace(outcome.messages);
    state.usage = addUsage(state.usage, outcome.usage);
    await state.emit({
      type: 'compaction',
      step,
      summary: outcome.summary,
      compactedMessages: outcome.compactedMessages,
      keptMessages: outcome.keptMessages,
      estimatedTokens,
      usage: outcome.usage,
      durationMs: performance.now() - started,
    });
  } catch (error) {
    state.signal.throwIfAborted();
    const message = `Compaction failed, continuing with the full history: ${error instanceof Error ? error.message : String(error)}`;
    await state.emit({ type: 'notice', step, kind: 'compaction-failed', message });
  }
}
