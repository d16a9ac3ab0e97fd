/** What {@link observeStream} tells: the iteration's start, each item, a failure, its end. */
export interface StreamObserver<T> {
  /** The consumer started iterating (once). */
  start?(): void;
  /** An item on its way to the consumer; throwing fails the iteration (the source is closed). */
  item?(value: T): void;
  /** The source failed (before `end`). */
  error?(error: unknown): void;
  /** The iteration ended: finished, failed, or left early by the consumer (once). */
  end?(): void;
}

/**
 * The same stream, with `observer` told of its items and its end, without a `for await … yield`
 * generator around it: each such layer costs every item of a long answer a few promises and
 * microtask turns (a model streaming 300 deltas through three wrappers paid for 900), here one
 * `then` per item. The source iterator is created when the consumer starts, and closed when the
 * consumer leaves early or the observer throws.
 *
 * @example
 * const counted = observeStream(model.stream(request), {
 *   item: (event) => { if (event.type === 'finish') spent += event.response.usage.outputTokens; },
 * });
 */
export function observeStream<T>(source: AsyncIterable<T>, observer: StreamObserver<T>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      observer.start?.();
      const iterator = source[Symbol.asyncIterator]();
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        observer.end?.();
      };
      const fail = (error: unknown): never => {
        if (!ended) observer.error?.(error);
        end();
        throw error;
      };
      const close = (value?: unknown): Promise<IteratorResult<T>> => {
        end();
        return iterator.return
          ? iterator.return(value)
          : Promise.resolve({ done: true, value: value as T } as IteratorResult<T>);
      };
      return {
        next: () =>
          iterator.next().then((result) => {
            if (result.done) {
              end();
              return result;
            }
            try {
              observer.item?.(result.value);
            } catch (error) {
              iterator.return?.()?.catch(() => {});
              fail(error);
            }
            return result;
          }, fail),
        return: close,
      };
    },
  };
}
