import type { Message } from '@agentry/llm';

/** Longest rendering of one tool output in a transcript; summaries need the gist, not the bulk. */
const MAX_OUTPUT_CHARS = 2000;

/**
 * Renders messages as a plain-text transcript (no tool protocol), for a summarisation prompt that
 * works the same with every provider.
 *
 * @example
 * renderTranscript([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]); // 'User: Hi'
 */
export function renderTranscript(messages: Message[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    for (const part of message.content) {
      if (part.type === 'text' && part.text) lines.push(`${speaker(message.role)}: ${part.text}`);
      else if (part.type === 'tool_call') {
        lines.push(`Assistant called tool ${part.name} with ${part.rawArguments ?? JSON.stringify(part.arguments)}`);
      } else if (part.type === 'tool_result') {
        const output = typeof part.output === 'string' ? part.output : JSON.stringify(part.output);
        const label = part.isError ? 'error' : 'result';
        lines.push(`Tool ${part.toolName} ${label}: ${clip(output ?? '')}`);
      }
    }
  }
  return lines.join('\n');
}

function speaker(role: Message['role']): string {
  return role === 'user' ? 'User' : role === 'assistant' ? 'Assistant' : 'Tool';
}

function clip(text: string): string {
  return text.length <= MAX_OUTPUT_CHARS
    ? text
    : `${text.slice(0, MAX_OUTPUT_CHARS)}… [${text.length - MAX_OUTPUT_CHARS} more characters]`;
}
