import type { FinishReason, ModelResponse, ReasoningPart, TextPart, ToolCallPart, Usage } from '@agentry/llm';
import { parseToolArguments } from '@agentry/llm';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';

/** The pieces of one assistant turn, however they arrived (one body or many chunks). */
export interface AssembledTurn {
  reasoning: string;
  text: string;
  toolCalls: ToolCallPart[];
  finishReason: string | null | undefined;
  usage: CompletionUsage | null | undefined;
  responseId: string | undefined;
  modelId: string;
}

/**
 * Builds the neutral response. `generate` and `stream` both end here, which is what keeps the
 * streamed `finish` response identical to the non-streamed one.
 *
 * @example
 * assembleResponse({ reasoning: '', text: 'Hi', toolCalls: [], finishReason: 'stop', usage, responseId: 'c1', modelId: 'gpt-4.1' });
 */
export function assembleResponse(turn: AssembledTurn): ModelResponse {
  const content: Array<TextPart | ReasoningPart | ToolCallPart> = [];
  if (turn.reasoning !== '') content.push({ type: 'reasoning', text: turn.reasoning });
  if (turn.text !== '') content.push({ type: 'text', text: turn.text });
  content.push(...turn.toolCalls);
  const response: ModelResponse = {
    content,
    finishReason: mapFinishReason(turn.finishReason, turn.toolCalls.length > 0),
    usage: mapUsage(turn.usage),
    modelId: turn.modelId,
  };
  if (turn.responseId) response.responseId = turn.responseId;
  return response;
}

/**
 * Converts a non-streamed Chat Completion.
 *
 * @example
 * const response = fromChatCompletion(await client.chat.completions.create(params), 'gpt-4.1');
 */
export function fromChatCompletion(completion: ChatCompletion, fallbackModel: string): ModelResponse {
  const choice = completion.choices[0];
  const message = choice?.message;
  const toolCalls: ToolCallPart[] = [];
  for (const [index, call] of (message?.tool_calls ?? []).entries()) {
    if (call.type !== 'function') continue;
    const id = call.id || fallbackToolCallId(index);
    toolCalls.push({ type: 'tool_call', id, name: call.function.name, ...parseToolArguments(call.function.arguments) });
  }
  return assembleResponse({
    reasoning: message ? (reasoningOf(message) ?? '') : '',
    text: message?.content ?? '',
    toolCalls,
    finishReason: choice?.finish_reason,
    usage: completion.usage,
    responseId: completion.id,
    modelId: completion.model || fallbackModel,
  });
}

/** Some compatible servers omit tool call ids; the id only has to be unique within the turn. */
export function fallbackToolCallId(index: number): string {
  return `call_${index}`;
}

/**
 * Reasoning text of a message or delta. Not part of OpenAI's schema: DeepSeek, DashScope and vLLM
 * use `reasoning_content`, OpenRouter and Ollama use `reasoning`.
 */
export function reasoningOf(value: object): string | undefined {
  const record = value as { reasoning_content?: unknown; reasoning?: unknown };
  if (typeof record.reasoning_content === 'string') return record.reasoning_content;
  if (typeof record.reasoning === 'string') return record.reasoning;
  return undefined;
}

/** Maps OpenAI's finish reason. Some compatible servers say `stop` after tool calls; the calls win. */
export function mapFinishReason(reason: string | null | undefined, hasToolCalls: boolean): FinishReason {
  if (hasToolCalls && (reason === 'stop' || reason == null)) return 'tool_calls';
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'other';
  }
}

/**
 * Usage buckets are disjoint, as Anthropic reports them: `inputTokens` excludes cached tokens, which
 * OpenAI counts inside `prompt_tokens`, so every bucket can be priced on its own.
 */
export function mapUsage(usage: CompletionUsage | null | undefined): Usage {
  const cacheRead = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  const cacheWrite = usage?.prompt_tokens_details?.cache_write_tokens ?? 0;
  return {
    inputTokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cacheRead - cacheWrite),
    outputTokens: usage?.completion_tokens ?? 0,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  };
}
