import { errors } from '@agentry/errors';
import type { CallOptions, LanguageModel, ModelRequest, ModelResponse, StreamEvent } from '@agentry/llm';
import { LeanAbortOpenAI, linkCallSignal } from './openai-client.ts';
import { abortedError, type ErrorContext, type OpenAIProviderName, toModelError } from './openai-errors.ts';
import { toChatCompletionParams } from './openai-request.ts';
import { fromChatCompletion } from './openai-response.ts';
import { ChunkAssembler } from './openai-stream.ts';

export interface OpenAIModelOptions {
  apiKey: string;
  /** For OpenAI-compatible servers (OpenRouter, DashScope, Ollama, vLLM), e.g. `http://localhost:11434/v1`. */
  baseURL?: string;
  model: string;
  /** `openai` (default) or `openai_compatible`, which sends `max_tokens` instead of `max_completion_tokens`. */
  provider?: OpenAIProviderName;
  /** Retries done by the SDK (backoff with jitter, honours Retry-After). Default 2. */
  maxRetries?: number;
  /** Per-attempt timeout. Default: the SDK's (10 minutes). */
  timeoutMs?: number;
  defaultHeaders?: Record<string, string>;
  fetch?: typeof globalThis.fetch;
}

/**
 * A LanguageModel backed by the Chat Completions API of OpenAI or any compatible server.
 *
 * @example
 * const model = createOpenAIModel({ apiKey: process.env.OPENAI_API_KEY!, model: 'gpt-4.1-mini' });
 * const local = createOpenAIModel({ apiKey: '', baseURL: 'http://localhost:11434/v1', model: 'qwen3', provider: 'openai_compatible' });
 * const res = await model.generate({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] });
 */
export function createOpenAIModel(options: OpenAIModelOptions): LanguageModel {
  const provider = options.provider ?? 'openai';
  if (provider === 'openai' && !options.apiKey) throw errors.modelNotConfigured('openai');
  const client = new LeanAbortOpenAI({
    // Local servers need no key, but the SDK refuses to start without one.
    apiKey: options.apiKey || 'not-needed',
    baseURL: options.baseURL,
    maxRetries: options.maxRetries ?? 2,
    timeout: options.timeoutMs,
    defaultHeaders: options.defaultHeaders,
    fetch: options.fetch,
  });
  const target = { model: options.model, provider };
  const context = (signal?: AbortSignal): ErrorContext => ({ provider, apiKey: options.apiKey, signal });

  async function generate(request: ModelRequest, callOptions?: CallOptions): Promise<ModelResponse> {
    const signal = callOptions?.signal;
    const call = linkCallSignal(signal);
    try {
      const body = { ...toChatCompletionParams(request, target), stream: false as const };
      const completion = await client.chat.completions.create(body, { signal: call.signal });
      return fromChatCompletion(completion, options.model);
    } catch (error) {
      throw toModelError(error, context(signal));
    } finally {
      call.unlink();
    }
  }

  async function* stream(request: ModelRequest, callOptions?: CallOptions): AsyncGenerator<StreamEvent> {
    const signal = callOptions?.signal;
    const assembler = new ChunkAssembler(options.model);
    const call = linkCallSignal(signal);
    try {
      const body = {
        ...toChatCompletionParams(request, target),
        stream: true as const,
        stream_options: { include_usage: true },
      };
      const chunks = await client.chat.completions.create(body, { signal: call.signal });
      // A plain loop, not `yield*`: delegating to a sync generator from an async one wraps every item.
      for await (const chunk of chunks) for (const event of assembler.accept(chunk)) yield event;
    } catch (error) {
      throw toModelError(error, context(signal));
    } finally {
      call.unlink();
    }
    // The SDK ends the iteration quietly on abort, so the signal is checked here.
    if (signal?.aborted) throw abortedError(signal.reason);
    if (!assembler.finished) throw streamCutOff(provider);
    for (const event of assembler.end()) yield event;
  }

  return { provider, modelId: options.model, honoursAbort: true, generate, stream };
}

function streamCutOff(provider: OpenAIProviderName) {
  return errors.upstream('model_connection_failed', `${provider}: the stream ended before the model finished`, {
    retryable: true,
  });
}
