import { errors } from '@agentry/errors';
import type { LanguageModel, ModelRequest, ModelResponse } from '@agentry/llm';
import { iterateAbortable } from './abortable.ts';
import type { Emit } from './emitter.ts';

export interface ModelStepResult {
  response: ModelResponse;
  latencyMs: number;
  timeToFirstEventMs?: number;
}

/**
 * Streams one model call, forwarding text and reasoning deltas as events as they arrive. The
 * answer itself is the stream's finish event, so nothing is concatenated here. Stops at once when
 * the signal aborts: a model that does not declare `honoursAbort` is guarded, so even one that
 * ignores the signal cannot keep a cancelled run alive.
 *
 * @example
 * const { response } = await streamModelStep(model, request, signal, emit, 0);
 */
export async function streamModelStep(
  model: LanguageModel,
  request: ModelRequest,
  signal: AbortSignal,
  emit: Emit,
  step: number,
): Promise<ModelStepResult> {
  const started = performance.now();
  let firstEventAt: number | undefined;
  let response: ModelResponse | undefined;
  const stream = model.stream(request, { signal });
  // A model that stops on its own when the signal aborts needs no guard layer (one promise per event).
  for await (const event of model.honoursAbort ? stream : iterateAbortable(stream, signal)) {
    firstEventAt ??= performance.now();
    if (event.type === 'finish') response = event.response;
    const sent =
      event.type === 'text-delta'
        ? emit({ type: 'text-delta', step, delta: event.delta })
        : event.type === 'reasoning-delta'
          ? emit({ type: 'reasoning-delta', step, delta: event.delta })
          : undefined;
    // One event per chunk: awaiting a sink that returned nothing would cost a tick each time.
    if (sent) await sent;
  }
  signal.throwIfAborted();
  if (!response) {
    throw errors.upstream('model_stream_incomplete', 'The model stream ended without a finish event', {
      retryable: true,
    });
  }
  const latencyMs = performance.now() - started;
  return { response, latencyMs, ...(firstEventAt === undefined ? {} : { timeToFirstEventMs: firstEventAt - started }) };
}
