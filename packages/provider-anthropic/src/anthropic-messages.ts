import type { ContentPart, Message, ReasoningPart, ToolResultPart } from '@agentry/llm';
import type { ContentBlockParam, MessageParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';

type TurnRole = 'user' | 'assistant';

interface Turn {
  role: TurnRole;
  content: ContentBlockParam[];
}

/**
 * Converts the neutral conversation to Messages API turns. Tool messages become user turns of
 * `tool_result` blocks, and consecutive turns of the same role are merged because the API wants
 * user and assistant to alternate (all results of a parallel call must share one user turn).
 *
 * @example
 * toAnthropicMessages([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
 * // [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]
 */
export function toAnthropicMessages(messages: Message[]): MessageParam[] {
  const turns: Turn[] = [];
  for (const message of messages) {
    const role: TurnRole = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = message.content.flatMap((part) => toBlocks(part, role));
    if (blocks.length === 0) continue;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  }
  return turns.map(resultsFirst);
}

function toBlocks(part: ContentPart, role: TurnRole): ContentBlockParam[] {
  switch (part.type) {
    case 'text':
      // The API rejects empty text blocks.
      return part.text === '' ? [] : [{ type: 'text', text: part.text }];
    case 'reasoning':
      return role === 'assistant' ? toThinkingBlocks(part) : [];
    case 'tool_call':
      return role === 'assistant'
        ? [{ type: 'tool_use', id: part.id, name: part.name, input: inputOf(part.arguments) }]
        : [];
    case 'tool_result':
      return [toToolResultBlock(part)];
  }
}

/** Thinking goes back unchanged (the signature proves it is ours); unsigned reasoning from elsewhere cannot. */
function toThinkingBlocks(part: ReasoningPart): ContentBlockParam[] {
  if (part.redactedData !== undefined) return [{ type: 'redacted_thinking', data: part.redactedData }];
  if (part.signature === undefined) return [];
  return [{ type: 'thinking', thinking: part.text, signature: part.signature }];
}

/** `input` must be an object; a call whose arguments were malformed is replayed with `{}`. */
function inputOf(args: unknown): Record<string, unknown> {
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

function toToolResultBlock(result: ToolResultPart): ToolResultBlockParam {
  const block: ToolResultBlockParam = {
    type: 'tool_result',
    tool_use_id: result.toolCallId,
    content: stringifyOutput(result.output),
  };
  if (result.isError) block.is_error = true;
  return block;
}

/** Tool output that is not already a string is sent as JSON. */
export function stringifyOutput(output: unknown): string {
  if (typeof output === 'string') return output;
  return JSON.stringify(output) ?? '';
}

/** The API requires `tool_result` blocks to open the user turn that answers a tool use. */
function resultsFirst(turn: Turn): MessageParam {
  if (turn.role === 'assistant') return turn;
  const results = turn.content.filter((b) => b.type === 'tool_result');
  if (results.length === 0) return turn;
  return { role: 'user', content: [...results, ...turn.content.filter((b) => b.type !== 'tool_result')] };
}
