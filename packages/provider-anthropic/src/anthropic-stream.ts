import type { StreamEvent, ToolCallPart } from '@agentry/llm';
import type {
  RawContentBlockDeltaEvent,
  RawContentBlockStartEvent,
  RawMessageDeltaEvent,
  RawMessageStreamEvent,
  StopReason,
} from '@anthropic-ai/sdk/resources/messages';
import {
  assembleResponse,
  type ResponsePart,
  thinkingPart,
  toolCallPart,
  type WireUsage,
} from './anthropic-response.ts';

/** One content block being received. Fragments are joined once at the end so accumulation stays linear. */
type OpenBlock =
  | { kind: 'text'; parts: string[] }
  | { kind: 'thinking'; parts: string[]; signature: string[] }
  | { kind: 'redacted'; data: string }
  | { kind: 'tool'; index: number; id: string; name: string; parts: string[]; done?: ToolCallPart }
  | { kind: 'ignored' };

/**
 * Turns raw Messages API stream events into neutral stream events and remembers enough to build
 * the final response.
 *
 * @example
 * const assembler = new EventAssembler('claude-sonnet-4-5');
 * for await (const event of sdkStream) yield* assembler.accept(event);
 * yield* assembler.end();
 */
export class EventAssembler {
  /** Keyed by the wire block index; insertion order is content order. */
  readonly #blocks = new Map<number, OpenBlock>();
  #toolCount = 0;
  #stopReason: StopReason | null = null;
  #usage: WireUsage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  #responseId: string | undefined;
  #modelId: string;
  #stopped = false;

  constructor(fallbackModel: string) {
    this.#modelId = fallbackModel;
  }

  /** True once `message_stop` arrived; a stream that ends before that was cut off. */
  get finished(): boolean {
    return this.#stopped;
  }

  /** Events for one wire event. */
  *accept(event: RawMessageStreamEvent): Generator<StreamEvent> {
    switch (event.type) {
      case 'message_start':
        this.#responseId = event.message.id;
        if (event.message.model) this.#modelId = event.message.model;
        this.#usage = { ...event.message.usage };
        return;
      case 'content_block_start':
        yield* this.#start(event);
        return;
      case 'content_block_delta':
        yield* this.#delta(event);
        return;
      case 'content_block_stop':
        yield* this.#stop(event.index);
        return;
      case 'message_delta':
        this.#messageDelta(event);
        return;
      case 'message_stop':
        this.#stopped = true;
        return;
    }
  }

  /** The closing `finish` event. */
  *end(): Generator<StreamEvent> {
    const content = [...this.#blocks.values()].flatMap(toResponseParts);
    const response = assembleResponse({
      content,
      stopReason: this.#stopReason,
      usage: this.#usage,
      responseId: this.#responseId,
      modelId: this.#modelId,
    });
    yield { type: 'finish', response };
  }

  *#start(event: RawContentBlockStartEvent): Generator<StreamEvent> {
    const block = event.content_block;
    let open: OpenBlock = { kind: 'ignored' };
    if (block.type === 'text') open = { kind: 'text', parts: [] };
    else if (block.type === 'thinking') open = { kind: 'thinking', parts: [], signature: [block.signature] };
    else if (block.type === 'redacted_thinking') open = { kind: 'redacted', data: block.data };
    else if (block.type === 'tool_use') {
      open = { kind: 'tool', index: this.#toolCount++, id: block.id, name: block.name, parts: [] };
      yield { type: 'tool-call-start', index: open.index, id: open.id, name: open.name };
    }
    this.#blocks.set(event.index, open);
    // Start blocks normally carry empty text; anything in them is the first delta.
    if (block.type === 'text' && block.text) yield* this.#text(open, block.text);
    if (block.type === 'thinking' && block.thinking) yield* this.#thinking(open, block.thinking);
  }

  *#delta(event: RawContentBlockDeltaEvent): Generator<StreamEvent> {
    const open = this.#blocks.get(event.index);
    if (!open) return;
    const delta = event.delta;
    if (delta.type === 'text_delta') yield* this.#text(open, delta.text);
    else if (delta.type === 'thinking_delta') yield* this.#thinking(open, delta.thinking);
    else if (delta.type === 'signature_delta' && open.kind === 'thinking') open.signature.push(delta.signature);
    else if (delta.type === 'input_json_delta' && open.kind === 'tool' && delta.partial_json) {
      open.parts.push(delta.partial_json);
      yield { type: 'tool-call-delta', index: open.index, id: open.id, delta: delta.partial_json };
    }
  }

  *#text(open: OpenBlock, text: string): Generator<StreamEvent> {
    if (open.kind !== 'text') return;
    open.parts.push(text);
    yield { type: 'text-delta', delta: text };
  }

  *#thinking(open: OpenBlock, text: string): Generator<StreamEvent> {
    if (open.kind !== 'thinking') return;
    open.parts.push(text);
    yield { type: 'reasoning-delta', delta: text };
  }

  *#stop(index: number): Generator<StreamEvent> {
    const open = this.#blocks.get(index);
    if (open?.kind !== 'tool' || open.done) return;
    const toolCall = toolCallPart(open.id, open.name, open.parts.join(''));
    open.done = toolCall;
    yield { type: 'tool-call-end', index: open.index, toolCall };
  }

  /** Counters in `message_delta` are cumulative and win over `message_start`'s when present. */
  #messageDelta(event: RawMessageDeltaEvent): void {
    if (event.delta.stop_reason) this.#stopReason = event.delta.stop_reason;
    const u = event.usage;
    this.#usage = {
      input_tokens: u.input_tokens ?? this.#usage.input_tokens,
      output_tokens: u.output_tokens,
      cache_read_input_tokens: u.cache_read_input_tokens ?? this.#usage.cache_read_input_tokens,
      cache_creation_input_tokens: u.cache_creation_input_tokens ?? this.#usage.cache_creation_input_tokens,
    };
  }
}

function toResponseParts(block: OpenBlock): ResponsePart[] {
  switch (block.kind) {
    case 'text':
      return [{ type: 'text', text: block.parts.join('') }];
    case 'thinking':
      return [thinkingPart(block.parts.join(''), block.signature.join(''))];
    case 'redacted':
      return [{ type: 'reasoning', text: '', redactedData: block.data }];
    case 'tool':
      return block.done ? [block.done] : [];
    case 'ignored':
      return [];
  }
}
