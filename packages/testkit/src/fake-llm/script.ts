import type { FakeRequest, FakeResponder, FakeTurn } from './types.ts';

/** The fake's answer plan: a FIFO of turns, then an optional responder. */
export interface Script {
  enqueue(...turns: FakeTurn[]): void;
  setResponder(fn: FakeResponder | undefined): void;
  /** The next turn for this request, or undefined when neither a queued turn nor a responder exists. */
  next(req: FakeRequest): Promise<FakeTurn | undefined>;
  pending(): number;
  reset(): void;
}

/**
 * Creates an empty script, optionally with a responder for when the queue runs dry.
 *
 * @example
 * const script = createScript();
 * script.enqueue({ type: 'reply', text: 'Hi' });
 */
export function createScript(responder?: FakeResponder): Script {
  const queue: FakeTurn[] = [];
  let fallback = responder;
  return {
    enqueue: (...turns) => {
      queue.push(...turns);
    },
    setResponder: (fn) => {
      fallback = fn;
    },
    next: async (req) => {
      const queued = queue.shift();
      if (queued) return queued;
      return fallback ? await fallback(req) : undefined;
    },
    pending: () => queue.length,
    reset: () => {
      queue.length = 0;
      fallback = undefined;
    },
  };
}
