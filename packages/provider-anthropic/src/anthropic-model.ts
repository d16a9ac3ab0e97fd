import { errors } from '@agentry/errors';
import type { CallOptions, LanguageModel, ModelRequest, ModelResponse, StreamEvent } from '@agentry/llm';
import Anthropic from '@anthropic-ai/sdk';
import { abortedError, type ErrorContext, toModelError } from './anthropic-errors.ts';
import { type RequestTarget, toMessageParams } from './anthropic-request.ts';
import { fromMessage } from './anthropic-response.ts';
import { EventAssembler } from './anthropic-stream.ts';

/** Per-attempt timeout when none is configured; the SDK's own default for non-streaming calls. */
const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

export interface AnthropicModelOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  /** Retries done by the SDK (backoff with jitter, honours Retry-After, retries 529). Default 2. */
  maxRetries?: number;
  /** Per-attempt timeout. Default 10 minutes. */
  timeoutMs?: number;
  /** Extended thinking; the budget is added to the default max_tokens. */
  thinking?: { budgetTokens: number };
  fetch?: typeof globalThis.fetch;
}

/**
 * A LanguageModel backed by Anthropic's Messages API.
 *
 * @example
 * const model = createAnthropicModel({ apiKey: process.env.ANTHROPIC_API_KEY!, model: 'claude-sonnet-4-5' });
 * for await (const event of model.stream({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] })) {
 *   if (event.type === 'text-delta') process.stdout.write(event.delta);
 * }
 */
export function createAnthropicModel(options: AnthropicModelOptions): LanguageModel {
  if (!options.apiKey) throw errors.modelNotConfigured('anthropic');
  const client = new Anthropic({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    maxRetries: options.maxRetries ?? 2,
    // An explicit timeout also stops the SDK refusing non-streaming calls with a large max_tokens.
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    fetch: options.fetch,
  });
  const target: RequestTarget = { model: options.model, thinking: options.thinking };
  const context = (signal?: AbortSignal): ErrorContext => ({ apiKey: options.apiKey, signal });

  async function generate(request: ModelRequest, callOptions?: CallOptions): Promise<ModelResponse> {
    const signal = callOptions?.signal;
    try {
      const body = { ...toMessageParams(request, target), stream: false as const };
      const message = await client.messages.create(body, { signal });
      return fromMessage(message, options.model);
    } catch (error) {
      throw toModelError(error, context(signal));
    }
  }

  async function* stream(request: ModelRequest, callOptions?: CallOptions): AsyncGenerator<StreamEvent> {
    const signal = callOptions?.signal;
    const assembler = new EventAssembler(options.model);
    try {
      const body = { ...toMessageParams(request, target), stream: true as const };
      const events = await client.messages.create(body, { signal });
      // A plain loop, not `yield*`: delegating to a sync generator from an async one wraps every item.
      for await (const event of events) for (const out of assembler.accept(event)) yield out;
    } catch (error) {
      throw toModelError(error, context(signal));
    }
    // The SDK ends the iteration quietly on abort, so the signal is checked here.
    if (signal?.aborted) throw abortedError(signal.reason);
    if (!assembler.finished) {
      throw errors.upstream('model_connection_failed', 'anthropic: the stream ended before the model finished', {
        retryable: true,
      });
    }
    for (const event of assembler.end()) yield event;
  }

  return { provider: 'anthropic', modelId: options.model, honoursAbort: true, generate, stream };
}
