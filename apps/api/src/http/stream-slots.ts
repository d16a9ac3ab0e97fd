import { AppError } from '@agentry/errors';

/** The open event streams (SSE) of one API process, up to a cap. */
export interface StreamSlots {
  /** A release function when a stream may open, undefined at the cap. */
  tryAcquire(): (() => void) | undefined;
  readonly open: number;
  readonly max: number;
}

/**
 * Counts the process's open SSE streams and refuses past `max`, so a flood of streams cannot take
 * every socket and byte of memory of an API process (the others keep serving, and a load balancer
 * sends the client elsewhere on retry). Each release counts once, however often it is called.
 *
 * @example
 * const slots = createStreamSlots(10_000);
 * const release = acquireStream(slots); // throws 503 too_many_streams at the cap
 * try { … } finally { release(); }
 */
export function createStreamSlots(max: number): StreamSlots {
  let open = 0;
  return {
    tryAcquire() {
      if (open >= max) return undefined;
      open++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        open--;
      };
    },
    get open() {
      return open;
    },
    max,
  };
}

/** Takes a stream slot or throws 503 `too_many_streams` (retryable, with Retry-After). */
export function acquireStream(slots: StreamSlots | undefined): () => void {
  if (!slots) return () => {};
  const release = slots.tryAcquire();
  if (release) return release;
  throw new AppError({
    code: 'too_many_streams',
    message: `This API process has ${slots.max} event streams open; retry shortly`,
    category: 'system',
    status: 503,
    retryable: true,
    retryAfterMs: 2000,
  });
}
