import type { ContentPart, Message, ReasoningPart, TextPart, ToolCallPart } from './messages.ts';

/** A tool as the model sees it: name, description and a JSON Schema for its arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema (type: object) of the arguments. */
  parameters: Record<string, unknown>;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; name: string };

export interface ModelRequest {
  system?: string;
  messages: Message[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  temperature?: number;
  maxOutputTokens?: number;
  /** Ask the provider to cache the system prompt and tools (Anthropic prompt caching). */
  cacheHints?: boolean;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

export interface ModelResponse {
  /** Text, reasoning and tool call parts in the order the model produced them. */
  content: Array<TextPart | ReasoningPart | ToolCallPart>;
  finishReason: FinishReason;
  usage: Usage;
  /** Provider's id of the response, for traces. */
  responseId?: string;
  modelId: string;
}

/** Events of a streamed model call. A stream always ends with exactly one `finish` event. */
export type StreamEvent =
  | { type: 'text-delta'; delta: string }
  | { type: 'reasoning-delta'; delta: string }
  | { type: 'tool-call-start'; index: number; id: string; name: string }
  | { type: 'tool-call-delta'; index: number; id: string; delta: string }
  | { type: 'tool-call-end'; index: number; toolCall: ToolCallPart }
  | { type: 'finish'; response: ModelResponse };

export interface CallOptions {
  signal?: AbortSignal;
}

/**
 * The provider-neutral model interface every adapter implements. The agent loop only knows this.
 *
 * @example
 * const res = await model.generate({ system: 'Be brief', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] });
 */
export interface LanguageModel {
  readonly provider: string;
  readonly modelId: string;
  /**
   * True when `generate` and `stream` fail with an `aborted` error as soon as the call's signal
   * aborts, before the first byte and mid-stream alike (checked by the provider conformance suite).
   * The loop then skips its own abort guard around the call.
   */
  readonly honoursAbort?: boolean;
  generate(request: ModelRequest, options?: CallOptions): Promise<ModelResponse>;
  stream(request: ModelRequest, options?: CallOptions): AsyncIterable<StreamEvent>;
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

export type { ContentPart };
