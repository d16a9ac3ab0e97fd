import { type LanguageModel, type Message, textOf, type Usage } from '@agentry/llm';
import { abortable } from './abortable.ts';
import { renderTranscript } from './render-transcript.ts';
import type { CompactionOptions } from './run-options.ts';

export const DEFAULT_SUMMARY_PROMPT = [
  'You compress the earlier part of a conversation between a user and an AI assistant that uses tools.',
  'Write a concise summary the assistant can continue from: the task and its constraints, facts and',
  'tool results learned (keep exact names, ids, numbers and values), what is done, and what remains.',
  'Write only the summary.',
].join(' ');

export interface CompactionOutcome {
  /** The new prompt history: the summary, then the recent messages. */
  messages: Message[];
  summary: string;
  compactedMessages: number;
  keptMessages: number;
  usage: Usage;
}

/**
 * Whether the estimated prompt reached the threshold share of the context window.
 *
 * @example
 * needsCompaction(8_500, { contextWindow: 10_000 }); // true (default ratio 0.8)
 */
export function needsCompaction(estimatedTokens: number, options: CompactionOptions): boolean {
  return estimatedTokens >= options.contextWindow * (options.thresholdRatio ?? 0.8);
}

/**
 * Index where the kept recent messages start, moved back so that kept tool results keep their
 * calls. 0 means there is nothing older to compact.
 */
export function compactionCut(messages: Message[], keepRecent: number): number {
  let cut = Math.max(0, messages.length - keepRecent);
  while (cut > 0 && messages[cut]?.role === 'tool') cut--;
  return cut;
}

/**
 * Replaces the history before the recent messages with a summary written by a model call.
 * Returns undefined when there is nothing to compact.
 *
 * @example
 * const outcome = await compactMessages(prompt, { contextWindow: 128_000 }, model, signal);
 */
export async function compactMessages(
  messages: Message[],
  options: CompactionOptions,
  runModel: LanguageModel,
  signal: AbortSignal,
): Promise<CompactionOutcome | undefined> {
  const cut = compactionCut(messages, options.keepRecentMessages ?? 6);
  if (cut === 0) return undefined;
  const older = messages.slice(0, cut);
  const recent = messages.slice(cut);
  const model = options.model ?? runModel;
  const request = {
    system: options.summaryPrompt ?? DEFAULT_SUMMARY_PROMPT,
    messages: [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: `<transcript>\n${renderTranscript(older)}\n</transcript>\n\nSummarise it.` },
        ],
      },
    ],
  };
  const response = await abortable(model.generate(request, { signal }), signal);
  const summary = textOf(response).trim();
  return {
    messages: withSummary(summary, recent),
    summary,
    compactedMessages: older.length,
    keptMessages: recent.length,
    usage: response.usage,
  };
}

/** Puts the summary first as user text, merged into a leading user message so roles still alternate. */
export function withSummary(summary: string, recent: Message[]): Message[] {
  const text = `<summary of the earlier conversation>\n${summary}\n</summary of the earlier conversation>`;
  const first = recent[0];
  if (first?.role === 'user') {
    return [{ role: 'user', content: [{ type: 'text', text: `${text}\n\n` }, ...first.content] }, ...recent.slice(1)];
  }
  return [{ role: 'user', content: [{ type: 'text', text }] }, ...recent];
}
