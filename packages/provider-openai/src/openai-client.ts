import OpenAI from 'openai';

/**
 * The SDK client with plain abort listeners. The SDK composes a caller's signal with its own by
 * `AbortSignal.any` (weak references and a finalization registry per request), a third of the
 * loop's overhead over a bare SDK loop in `bench/agent-loop.bench.ts`. Overriding the public
 * `fetchWithTimeout` turns that off; the signal it gets is always `linkCallSignal`'s per-call one,
 * so the listener added here dies with the call instead of piling up on a long-lived signal.
 */
export class LeanAbortOpenAI extends OpenAI {
  static {
    // The SDK builds its User-Agent from the class name: providers keep seeing `OpenAI/JS <version>`.
    Object.defineProperty(LeanAbortOpenAI, 'name', { value: 'OpenAI' });
  }

  override fetchWithTimeout(
    url: RequestInfo,
    init: RequestInit | undefined,
    ms: number,
    controller: AbortController,
  ): Promise<Response> {
    const signal = init?.signal;
    if (signal) {
      forwardAbort(signal, controller);
      init = { ...init, signal: undefined };
    }
    return super.fetchWithTimeout(url, init, ms, controller);
  }
}

/** Kept apart so the listener's closure holds the controller only, not the request body. */
function forwardAbort(signal: AbortSignal, controller: AbortController): void {
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
}

/**
 * A signal for one model call, following the caller's until `unlink` at the end of the call.
 *
 * @example
 * const call = linkCallSignal(signal);
 * try { await client.embeddings.create(body, { signal: call.signal }); } finally { call.unlink(); }
 */
export function linkCallSignal(outer: AbortSignal | undefined): { signal: AbortSignal | undefined; unlink(): void } {
  if (!outer) return { signal: undefined, unlink: () => {} };
  const call = new AbortController();
  if (outer.aborted) {
    call.abort(outer.reason);
    return { signal: call.signal, unlink: () => {} };
  }
  const onAbort = () => call.abort(outer.reason);
  outer.addEventListener('abort', onAbort, { once: true });
  return { signal: call.signal, unlink: () => outer.removeEventListener('abort', onAbort) };
}
