import type { ContentPart, Message } from '@agentry/llm';

/** What an expired ephemeral output is replaced with in the prompt. */
export const EPHEMERAL_PLACEHOLDER = '<removed to save context>';

/**
 * The prompt view of a history where, for each ephemeral tool, only its last N results keep their
 * output; older ones show a short placeholder. The input is not changed (the stored transcript
 * keeps everything) and untouched messages are shared, not copied.
 *
 * @example
 * applyEphemeral(messages, { get_page: 1 }); // only the newest get_page result stays in full
 */
export function applyEphemeral(messages: Message[], keep: Record<string, number> | undefined): Message[] {
  if (!keep || Object.keys(keep).length === 0) return messages;
  const seen = new Map<string, number>();
  const out = messages.slice();
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== 'tool') continue;
    let changed: ContentPart[] | undefined;
    for (let j = message.content.length - 1; j >= 0; j--) {
      const part = message.content[j]!;
      const limit = part.type === 'tool_result' ? keep[part.toolName] : undefined;
      if (part.type !== 'tool_result' || limit === undefined) continue;
      const count = (seen.get(part.toolName) ?? 0) + 1;
      seen.set(part.toolName, count);
      if (count <= limit || part.output === EPHEMERAL_PLACEHOLDER) continue;
      changed ??= message.content.slice();
      changed[j] = { ...part, output: EPHEMERAL_PLACEHOLDER };
    }
    if (changed) out[i] = { ...message, content: changed };
  }
  return out;
}
