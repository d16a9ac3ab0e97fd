import { createHash } from 'node:crypto';
import { argumentsText, argumentsValue, DEFAULT_CHUNK_SIZE, splitArguments, splitText } from './chunks.ts';
import { anthropicErrorBody, type WireError } from './error-bodies.ts';
import { wireId } from './ids.ts';
import type { SseEvent } from './sse-event.ts';
import type { FakeReplyTurn, FakeToolCall } from './types.ts';
import { type ResolvedUsage, resolveUsage } from './usage.ts';

/**
 * The signature the fake puts on a thinking block: deterministic, so tests can check that a client
 * sends it back unchanged on the next turn.
 *
 * @example
 * thinkingSignature('Let me think'); // base64 text, the same for the same reasoning
 */
export function thinkingSignature(reasoning: string): string {
  return Buffer.from(`fake-signature:${createHash('sha256').update(reasoning).digest('hex')}`).toString('base64');
}

function stopReason(turn: FakeReplyTurn): string {
  if (turn.finishReason === 'length') return 'max_tokens';
  if (turn.finishReason === 'tool_calls') return 'tool_use';
  if (turn.finishReason === 'stop') return 'end_turn';
  return turn.toolCalls?.length ? 'tool_use' : 'end_turn';
}

function anthropicUsage(usage: ResolvedUsage, outputTokens: number): Record<string, unknown> {
  return {
    input_tokens: usage.input,
    cache_creation_input_tokens: usage.cacheWrite,
    cache_read_input_tokens: usage.cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: usage.cacheWrite, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}

function toolUseId(call: FakeToolCall): string {
  return call.id ?? wireId('toolu_');
}

/** Content blocks in the order the real API produces them: thinking, text, tool uses. */
function contentBlocks(turn: FakeReplyTurn): Array<Record<string, unknown>> {
  const blocks: Array<Record<string, unknown>> = [];
  if (turn.reasoning !== undefined) {
    blocks.push({ type: 'thinking', thinking: turn.reasoning, signature: thinkingSignature(turn.reasoning) });
  }
  if (turn.text) blocks.push({ type: 'text', text: turn.text });
  for (const call of turn.toolCalls ?? []) {
    blocks.push({ type: 'tool_use', id: toolUseId(call), name: call.name, input: argumentsValue(call) });
  }
  return blocks;
}

/**
 * A Messages API `message` object for a non-streaming request.
 *
 * @example
 * anthropicMessage({ type: 'reply', text: 'Hi' }, 'claude-sonnet-4-5').content; // [{ type: 'text', text: 'Hi' }]
 */
export function anthropicMessage(turn: FakeReplyTurn, model: string): Record<string, unknown> {
  const usage = resolveUsage(turn.usage);
  return {
    id: wireId('msg_'),
    type: 'message',
    role: 'assistant',
    model,
    content: contentBlocks(turn),
    stop_reason: stopReason(turn),
    stop_sequence: null,
    usage: anthropicUsage(usage, usage.output),
  };
}

/** `message_start` (with the real API's provisional output count) followed by a `ping`, as the API opens a stream. */
function openingEvents(model: string, usage: ResolvedUsage): SseEvent[] {
  const message = {
    id: wireId('msg_'),
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: anthropicUsage(usage, Math.min(1, usage.output)),
  };
  return [
    { event: 'message_start', data: { type: 'message_start', message } },
    { event: 'ping', data: { type: 'ping' } },
  ];
}

/** start, deltas, stop of one content block. */
function blockEvents(
  index: number,
  start: Record<string, unknown>,
  deltas: Array<Record<string, unknown> | (() => Record<string, unknown>)>,
): SseEvent[] {
  const wrap = (delta: Record<string, unknown>) => ({ type: 'content_block_delta', index, delta });
  return [
    { event: 'content_block_start', data: { type: 'content_block_start', index, content_block: start } },
    // A delta given as a function is built when written (`onTextPiece`), so its wrapper is too.
    ...deltas.map((delta) => ({
      event: 'content_block_delta',
      data: typeof delta === 'function' ? () => wrap(delta()) : wrap(delta),
    })),
    { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
  ];
}

function streamedBlocks(turn: FakeReplyTurn, size: number): SseEvent[] {
  const events: SseEvent[] = [];
  let index = 0;
  if (turn.reasoning !== undefined) {
    const deltas: Array<Record<string, unknown>> = splitText(turn.reasoning, size).map((thinking) => ({
      type: 'thinking_delta',
      thinking,
    }));
    deltas.push({ type: 'signature_delta', signature: thinkingSignature(turn.reasoning) });
    events.push(...blockEvents(index++, { type: 'thinking', thinking: '', signature: '' }, deltas));
  }
  if (turn.text) {
    const rewrite = turn.onTextPiece;
    const deltas = splitText(turn.text, size).map((text) =>
      rewrite ? () => ({ type: 'text_delta', text: rewrite(text) }) : { type: 'text_delta', text },
    );
    events.push(...blockEvents(index++, { type: 'text', text: '' }, deltas));
  }
  for (const call of turn.toolCalls ?? []) {
    // The real API opens every tool input with an empty fragment; clients must cope with it.
    const fragments = ['', ...splitArguments(argumentsText(call), size)];
    const deltas = fragments.map((partial_json) => ({ type: 'input_json_delta', partial_json }));
    events.push(...blockEvents(index++, { type: 'tool_use', id: toolUseId(call), name: call.name, input: {} }, deltas));
  }
  return events;
}

/**
 * The SSE events of a streamed Messages API answer, from `message_start` to `message_stop`.
 *
 * @example
 * anthropicStreamEvents({ type: 'reply', text: 'Hello' }, 'claude-sonnet-4-5').at(-1)?.event; // 'message_stop'
 */
export function anthropicStreamEvents(turn: FakeReplyTurn, model: string): SseEvent[] {
  const usage = resolveUsage(turn.usage);
  const messageDelta = {
    type: 'message_delta',
    delta: { stop_reason: stopReason(turn), stop_sequence: null },
    usage: anthropicUsage(usage, usage.output),
  };
  return [
    ...openingEvents(model, usage),
    ...streamedBlocks(turn, turn.chunkSize ?? DEFAULT_CHUNK_SIZE),
    { event: 'message_delta', data: messageDelta },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ];
}

/**
 * A stream that opens normally and then fails with `event: error`, as the API does when overloaded mid-answer.
 *
 * @example
 * anthropicFailingStreamEvents({ status: 529, message: 'Overloaded' }, 'claude-sonnet-4-5', 'req_1');
 */
export function anthropicFailingStreamEvents(error: WireError, model: string, requestId: string): SseEvent[] {
  return [
    ...openingEvents(model, resolveUsage(undefined)),
    { event: 'error', data: anthropicErrorBody(error, requestId) },
  ];
}
