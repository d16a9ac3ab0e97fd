import type { FinishReason, ModelResponse, ReasoningPart, TextPart, ToolCallPart, Usage } from '@agentry/llm';
import { parseToolArguments } from '@agentry/llm';
import type { ContentBlock, Message, StopReason } from '@anthropic-ai/sdk/resources/messages';

export type ResponsePart = TextPart | ReasoningPart | ToolCallPart;

/** The usage counters the Messages API reports (a subset of its `Usage`). */
export interface WireUsage {
  input_tokens: number | null;
  output_tokens: number;
  cache_read_input_tokens: number | null;
  cache_creation_input_tokens: number | null;
}

/** The pieces of one assistant message, however they arrived (one body or many events). */
export interface AssembledMessage {
  content: ResponsePart[];
  stopReason: StopReason | null;
  usage: WireUsage;
  responseId: string | undefined;
  modelId: string;
}

/**
 * Builds the neutral response. `generate` and `stream` both end here, which keeps the streamed
 * `finish` response identical to the non-streamed one.
 *
 * @example
 * assembleResponse({ content: [{ type: 'text', text: 'Hi' }], stopReason: 'end_turn', usage, responseId: 'msg_1', modelId: 'claude-sonnet-4-5' });
 */
export function assembleResponse(message: AssembledMessage): ModelResponse {
  const response: ModelResponse = {
    content: message.content,
    finishReason: mapStopReason(message.stopReason),
    usage: mapUsage(message.usage),
    modelId: message.modelId,
  };
  if (message.responseId) response.responseId = message.responseId;
  return response;
}

/**
 * Converts a non-streamed Messages API answer.
 *
 * @example
 * const response = fromMessage(await client.messages.create(params), 'claude-sonnet-4-5');
 */
export function fromMessage(message: Message, fallbackModel: string): ModelResponse {
  return assembleResponse({
    content: message.content.flatMap(toPart),
    stopReason: message.stop_reason,
    usage: message.usage,
    responseId: message.id,
    modelId: message.model || fallbackModel,
  });
}

/** Server-side tool blocks (web search and the like) are not part of the neutral spec and are dropped. */
function toPart(block: ContentBlock): ResponsePart[] {
  switch (block.type) {
    case 'text':
      return [{ type: 'text', text: block.text }];
    case 'thinking':
      return [thinkingPart(block.thinking, block.signature)];
    case 'redacted_thinking':
      return [{ type: 'reasoning', text: '', redactedData: block.data }];
    case 'tool_use':
      return [toolCallPart(block.id, block.name, block.input)];
    default:
      return [];
  }
}

/** A reasoning part; an empty signature is left out rather than sent back as `''`. */
export function thinkingPart(text: string, signature: string): ReasoningPart {
  return signature ? { type: 'reasoning', text, signature } : { type: 'reasoning', text };
}

/**
 * A tool call from its wire input. A string input is raw JSON text (what a stream delivers, and how a
 * malformed value can arrive), so it is parsed without throwing.
 */
export function toolCallPart(id: string, name: string, input: unknown): ToolCallPart {
  const args = typeof input === 'string' ? parseToolArguments(input) : { arguments: input ?? {} };
  return { type: 'tool_call', id, name, ...args };
}

/** Maps Anthropic's stop reason to the spec's finish reason. */
export function mapStopReason(reason: StopReason | null): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'other';
  }
}

/** Anthropic's counters are already disjoint: `input_tokens` excludes cache reads and writes. */
export function mapUsage(usage: WireUsage): Usage {
  return {
    inputTokens: usage.input_tokens ?? 0,
    outputTokens: usage.output_tokens,
    cacheReadTokens: usage.cache_read_input_tokens ?? 0,
    cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
  };
}
