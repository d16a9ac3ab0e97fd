/**
 * Settles with `promise`, or rejects with the signal's reason as soon as the signal aborts, even
 * when the underlying work ignores the signal (a model or tool that never checks it must not keep
 * a cancelled run alive).
 *
 * @example
 * const result = await abortable(tools.execute(call, { signal }), signal);
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Iterates `source`, stopping with the signal's reason the moment it aborts; the source iterator is
 * then closed in the background. One abort listener serves the whole iteration, and each item costs
 * one promise: no `Promise.race` against a never-settling promise, whose reactions would pile up
 * for every chunk of a long stream.
 *
 * @example
 * for await (const event of iterateAbortable(model.stream(request, { signal }), signal)) handle(event);
 */
export async function* iterateAbortable<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  signal.throwIfAborted();
  const iterator = source[Symbol.asyncIterator]();
  let rejectPending: ((reason: unknown) => void) | undefined;
  const onAbort = () => rejectPending?.(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  let finished = false;
  try {
    while (true) {
      const next = await new Promise<IteratorResult<T>>((resolve, reject) => {
        rejectPending = reject;
        iterator.next().then(resolve, reject);
      });
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    rejectPending = undefined;
    signal.removeEventListener('abort', onAbort);
    // Not awaited: a stuck source must not delay the caller.
    if (!finished) iterator.return?.()?.catch(() => {});
  }
}
