import { argumentsText, DEFAULT_CHUNK_SIZE, splitArguments, splitText } from './chunks.ts';
import { openaiErrorBody, type WireError } from './error-bodies.ts';
import { wireId } from './ids.ts';
import type { SseEvent } from './sse-event.ts';
import type { FakeReplyTurn } from './types.ts';
import { type ResolvedUsage, resolveUsage } from './usage.ts';

/** What the OpenAI answer takes from the request. */
export interface OpenAiContext {
  model: string;
  /** `stream_options.include_usage` was set: every chunk carries `usage: null`, then a final usage chunk. */
  includeUsage: boolean;
}

/** The fields every completion and chunk starts with (in the real API's order, for readable dumps). */
function envelope(object: string, model: string): Record<string, unknown> {
  const created = Math.floor(Date.now() / 1000);
  return { id: wireId('chatcmpl-'), object, created, model, system_fingerprint: 'fp_fake' };
}

function finishReason(turn: FakeReplyTurn): string {
  return turn.finishReason ?? (turn.toolCalls?.length ? 'tool_calls' : 'stop');
}

/** OpenAI counts cached tokens inside `prompt_tokens`; it has no cache-write counter. */
function openaiUsage(usage: ResolvedUsage): Record<string, unknown> {
  const prompt = usage.input + usage.cacheRead;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output,
    total_tokens: prompt + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function toolCallsWithIds(turn: FakeReplyTurn): Array<{ id: string; name: string; args: string }> {
  return (turn.toolCalls ?? []).map((call) => ({
    id: call.id ?? wireId('call_'),
    name: call.name,
    args: argumentsText(call),
  }));
}

/**
 * A `chat.completion` object for a non-streaming request.
 *
 * @example
 * openaiCompletion({ type: 'reply', text: 'Hi' }, { model: 'gpt-4o', includeUsage: false }).choices[0].message.content; // 'Hi'
 */
export function openaiCompletion(turn: FakeReplyTurn, ctx: OpenAiContext): Record<string, unknown> {
  const calls = toolCallsWithIds(turn);
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: turn.text ?? (calls.length ? null : ''),
    refusal: null,
    annotations: [],
  };
  if (turn.reasoning !== undefined) message.reasoning_content = turn.reasoning;
  if (calls.length) {
    message.tool_calls = calls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.args },
    }));
  }
  return {
    ...envelope('chat.completion', ctx.model),
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(turn) }],
    usage: openaiUsage(resolveUsage(turn.usage)),
    service_tier: 'default',
  };
}

/** Builds chunk payloads sharing one id/created/model, with `usage: null` when usage was asked for. */
function chunkFactory(
  ctx: OpenAiContext,
): (delta: Record<string, unknown>, finish?: string) => Record<string, unknown> {
  const env = envelope('chat.completion.chunk', ctx.model);
  return (delta, finish) => ({
    ...env,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish ?? null }],
    ...(ctx.includeUsage ? { usage: null } : {}),
  });
}

/** Tool call deltas: the first names the call (id, type, name, empty arguments), the rest carry argument fragments. */
function toolCallDeltas(turn: FakeReplyTurn, size: number): Array<Record<string, unknown>> {
  const deltas: Array<Record<string, unknown>> = [];
  toolCallsWithIds(turn).forEach((call, index) => {
    deltas.push({
      tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
    });
    for (const fragment of splitArguments(call.args, size)) {
      deltas.push({ tool_calls: [{ index, function: { arguments: fragment } }] });
    }
  });
  return deltas;
}

/**
 * The SSE events of a streamed `chat.completion.chunk` answer, ending with `data: [DONE]`.
 *
 * @example
 * openaiStreamEvents({ type: 'reply', text: 'Hello' }, { model: 'gpt-4o', includeUsage: true }).at(-1); // { data: '[DONE]' }
 */
export function openaiStreamEvents(turn: FakeReplyTurn, ctx: OpenAiContext): SseEvent[] {
  const size = turn.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const chunk = chunkFactory(ctx);
  const payloads: unknown[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const piece of splitText(turn.reasoning ?? '', size)) payloads.push(chunk({ reasoning_content: piece }));
  const rewrite = turn.onTextPiece;
  for (const piece of splitText(turn.text ?? '', size))
    payloads.push(rewrite ? () => chunk({ content: rewrite(piece) }) : chunk({ content: piece }));
  for (const delta of toolCallDeltas(turn, size)) payloads.push(chunk(delta));
  payloads.push(chunk({}, finishReason(turn)));
  if (ctx.includeUsage) payloads.push({ ...chunk({}), choices: [], usage: openaiUsage(resolveUsage(turn.usage)) });
  return [...payloads.map((data) => ({ data })), { data: '[DONE]' }];
}

/**
 * A stream that starts normally and then fails: OpenAI reports in-stream failures as a `data: {"error":…}` chunk.
 *
 * @example
 * openaiFailingStreamEvents({ status: 500, message: 'boom' }, { model: 'gpt-4o', includeUsage: false });
 */
export function openaiFailingStreamEvents(error: WireError, ctx: OpenAiContext): SseEvent[] {
  const chunk = chunkFactory(ctx);
  return [{ data: chunk({ role: 'assistant', content: '', refusal: null }) }, { data: openaiErrorBody(error) }];
}
