import type { ContentPart, Message, ToolCallPart, ToolResultPart } from '@agentry/llm';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';

/**
 * Converts the neutral conversation to Chat Completions messages: the system prompt first, tool
 * results as one `role: 'tool'` message each, assistant tool calls with JSON-string arguments.
 *
 * @example
 * toOpenAIMessages('Be brief', [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
 * // [{ role: 'system', content: 'Be brief' }, { role: 'user', content: 'Hi' }]
 */
export function toOpenAIMessages(system: string | undefined, messages: Message[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (system) out.push({ role: 'system', content: system });
  for (const message of messages) {
    if (message.role === 'assistant') out.push(toAssistantMessage(message.content));
    else out.push(...toUserSideMessages(message.content));
  }
  return out;
}

function toAssistantMessage(parts: ContentPart[]): ChatCompletionAssistantMessageParam {
  const text = joinText(parts);
  const toolCalls = parts.filter((p): p is ToolCallPart => p.type === 'tool_call').map(toWireToolCall);
  // Reasoning is not sent back: OpenAI has no field for it and several compatible servers reject one.
  const message: ChatCompletionAssistantMessageParam = { role: 'assistant', content: text === '' ? null : text };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}

function toWireToolCall(call: ToolCallPart): ChatCompletionMessageFunctionToolCall {
  // Malformed arguments go back verbatim so the model sees exactly what it produced.
  const args = call.rawArguments ?? JSON.stringify(call.arguments ?? {});
  return { id: call.id, type: 'function', function: { name: call.name, arguments: args } };
}

/** User and tool messages: tool results first (they must follow the assistant turn), then any text. */
function toUserSideMessages(parts: ContentPart[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = parts
    .filter((p): p is ToolResultPart => p.type === 'tool_result')
    .map(toToolMessage);
  const text = joinText(parts);
  if (text !== '') out.push({ role: 'user', content: text });
  return out;
}

function toToolMessage(result: ToolResultPart): ChatCompletionToolMessageParam {
  return { role: 'tool', tool_call_id: result.toolCallId, content: stringifyOutput(result.output) };
}

/** Tool output that is not already a string is sent as JSON. */
export function stringifyOutput(output: unknown): string {
  if (typeof output === 'string') return output;
  return JSON.stringify(output) ?? '';
}

function joinText(parts: ContentPart[]): string {
  return parts
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('');
}
