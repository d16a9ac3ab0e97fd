import type { ModelResponse, StreamEvent, ToolCallPart } from '@agentry/llm';
import { parseToolArguments } from '@agentry/llm';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { assembleResponse, fallbackToolCallId, reasoningOf } from './openai-response.ts';

type ToolCallDelta = NonNullable<ChatCompletionChunk.Choice.Delta['tool_calls']>[number];

interface PendingToolCall {
  /** Order of the call in the message, which is the index the spec's events use. */
  index: number;
  id: string;
  name: string;
  /** Argument fragments, joined once at the end so accumulation stays linear. */
  argParts: string[];
}

/**
 * Turns Chat Completions chunks into neutral stream events and remembers enough to build the final
 * response. Text is kept as an array of chunks and joined once.
 *
 * @example
 * const assembler = new ChunkAssembler('gpt-4.1');
 * for await (const chunk of sdkStream) yield* assembler.accept(chunk);
 * yield* assembler.end();
 */
export class ChunkAssembler {
  readonly #reasoning: string[] = [];
  readonly #text: string[] = [];
  /** Keyed by the wire `index` of the call. */
  readonly #calls = new Map<number, PendingToolCall>();
  #finishReason: string | null = null;
  #usage: CompletionUsage | null = null;
  #responseId: string | undefined;
  #modelId: string;

  constructor(fallbackModel: string) {
    this.#modelId = fallbackModel;
  }

  /** True once the model said why it stopped; a stream that ends before that was cut off. */
  get finished(): boolean {
    return this.#finishReason !== null;
  }

  /** Events for one chunk. */
  *accept(chunk: ChatCompletionChunk): Generator<StreamEvent> {
    if (!this.#responseId && chunk.id) this.#responseId = chunk.id;
    if (chunk.model) this.#modelId = chunk.model;
    // With include_usage the usage arrives in a last chunk without choices; some servers put it earlier.
    if (chunk.usage) this.#usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (choice.index !== 0) continue;
      yield* this.#acceptDelta(choice.delta);
      if (choice.finish_reason) this.#finishReason = choice.finish_reason;
    }
  }

  /** The closing events: one `tool-call-end` per call, in order, then `finish`. */
  *end(): Generator<StreamEvent> {
    const toolCalls: ToolCallPart[] = [];
    for (const call of this.#calls.values()) {
      const toolCall: ToolCallPart = {
        type: 'tool_call',
        id: call.id,
        name: call.name,
        ...parseToolArguments(call.argParts.join('')),
      };
      toolCalls.push(toolCall);
      yield { type: 'tool-call-end', index: call.index, toolCall };
    }
    yield { type: 'finish', response: this.#response(toolCalls) };
  }

  #response(toolCalls: ToolCallPart[]): ModelResponse {
    return assembleResponse({
      reasoning: this.#reasoning.join(''),
      text: this.#text.join(''),
      toolCalls,
      finishReason: this.#finishReason,
      usage: this.#usage,
      responseId: this.#responseId,
      modelId: this.#modelId,
    });
  }

  *#acceptDelta(delta: ChatCompletionChunk.Choice.Delta): Generator<StreamEvent> {
    const reasoning = reasoningOf(delta);
    if (reasoning) {
      this.#reasoning.push(reasoning);
      yield { type: 'reasoning-delta', delta: reasoning };
    }
    if (delta.content) {
      this.#text.push(delta.content);
      yield { type: 'text-delta', delta: delta.content };
    }
    for (const call of delta.tool_calls ?? []) yield* this.#acceptToolCall(call);
  }

  *#acceptToolCall(delta: ToolCallDelta): Generator<StreamEvent> {
    let call = this.#calls.get(delta.index);
    if (!call) {
      const index = this.#calls.size;
      call = { index, id: delta.id || fallbackToolCallId(index), name: delta.function?.name ?? '', argParts: [] };
      this.#calls.set(delta.index, call);
      yield { type: 'tool-call-start', index, id: call.id, name: call.name };
    } else if (!call.name && delta.function?.name) {
      // Some servers repeat id and name on every chunk; only the first one counts.
      call.name = delta.function.name;
    }
    const args = delta.function?.arguments;
    if (args) {
      call.argParts.push(args);
      yield { type: 'tool-call-delta', index: call.index, id: call.id, delta: args };
    }
  }
}
