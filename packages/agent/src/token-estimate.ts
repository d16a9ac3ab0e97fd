import type { Message, Usage } from '@agentry/llm';

/** Rough tokens of a text: about four characters per token, good enough for a threshold. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Rough tokens of messages (parts serialised as JSON where they are not text).
 *
 * @example
 * estimateMessagesTokens([{ role: 'user', content: [{ type: 'text', text: 'abcd' }] }]); // 1 + overhead
 */
export function estimateMessagesTokens(messages: Message[]): number {
  let chars = 0;
  for (const message of messages) {
    chars += 8;
    for (const part of message.content) {
      if (part.type === 'text' || part.type === 'reasoning') chars += part.text.length;
      else if (part.type === 'tool_call')
        chars += part.name.length + (part.rawArguments ?? JSON.stringify(part.arguments) ?? '').length;
      else chars += typeof part.output === 'string' ? part.output.length : (JSON.stringify(part.output) ?? '').length;
    }
  }
  return Math.ceil(chars / 4);
}

/** Prompt tokens the provider counted: fresh input plus cache reads and writes. */
export function promptTokensOf(usage: Usage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}
