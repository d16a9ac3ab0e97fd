import { errors } from '@agentry/errors';
import type { Context } from 'hono';
import type { AuthVariables } from './auth.ts';
import { endUserKey } from './limits.ts';
import type { VisitorStreams } from './visitor-streams.ts';

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
  throw errors.of({
    code: 'too_many_streams',
    message: `This API process has ${slots.max} event streams open; retry shortly`,
    category: 'system',
    retryable: true,
    retryAfterMs: 2000,
  });
}

/**
 * Takes what an event stream needs: a slot of the process (every caller) and, for a visitor (a
 * verified end user, or a publishable key's client by IP; not the tenant's servers), one of the
 * visitor's own, else 429 `too_many_streams_for_visitor` with Retry-After. One release frees both.
 *
 * @example
 * const release = await acquireEventStream(c, deps);
 * return streamRunEvents(c, deps.events, run, release, deps);
 */
export async function acquireEventStream(
  c: Context<{ Variables: AuthVariables }>,
  deps: { streams?: StreamSlots; visitorStreams?: VisitorStreams; rateLimit: { trustedProxies?: number } },
): Promise<() => void> {
  const releaseSlot = acquireStream(deps.streams);
  const visitor = deps.visitorStreams ? endUserKey(c, deps.rateLimit.trustedProxies ?? 0) : undefined;
  if (!visitor || !deps.visitorStreams) return releaseSlot;
  let releaseLease: (() => void) | undefined;
  try {
    releaseLease = await deps.visitorStreams.tryAcquire(visitor);
  } finally {
    if (!releaseLease) releaseSlot();
  }
  if (!releaseLease) {
    throw errors.of({
      code: 'too_many_streams_for_visitor',
      message: `This visitor already has ${deps.visitorStreams.max} event streams open; close one or retry shortly`,
      category: 'user',
      retryable: true,
      retryAfterMs: 5000,
    });
  }
  const lease = releaseLease;
  return () => {
    releaseSlot();
    lease();
  };
}
