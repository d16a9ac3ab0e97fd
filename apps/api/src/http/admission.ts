import { AsyncLocalStorage } from 'node:async_hooks';
import { type AppError, errors } from '@agentry/errors';
import type { MiddlewareHandler } from 'hono';

/** How many requests may do database work at once, and how many may wait for a turn, how long. */
export interface AdmissionOptions {
  /** Requests admitted at once (each may run database work). */
  maxInFlight: number;
  /** Requests waiting for a turn at most; one more is refused at once. */
  maxQueued: number;
  /** How long a request waits for a turn at most before it is refused. */
  maxWaitMs: number;
  /**
   * Runs not yet running (waiting or deferred in the queue) at most; a request that would start
   * one more is refused. 0 or absent: no bound.
   */
  maxQueuedRuns?: number;
}

/** A bound on the requests doing database work at once, with a short bounded wait in front. */
export interface Admission {
  /** A release function when a turn is free and nobody waits; undefined otherwise. */
  tryAcquire(): (() => void) | undefined;
  /**
   * Waits for a turn (first come, first served). Rejects with 503 `server_busy` when the wait queue
   * is full or the turn does not come within `maxWaitMs`, and with the signal's reason on abort.
   */
  acquire(signal?: AbortSignal): Promise<() => void>;
  readonly inFlight: number;
  readonly queued: number;
  readonly options: AdmissionOptions;
}

interface Waiter {
  resolve(release: () => void): void;
  reject(error: unknown): void;
  settle(): void;
}

/**
 * A counting semaphore with a bounded FIFO queue and a deadline per waiter. A turn given back is
 * free again (or handed to the first waiter) only in a later turn of the event loop
 * (`setImmediate`). PGlite runs every query synchronously on the main thread, so a request's
 * database work, chained by promises alone, runs from start to end without the loop reading a
 * socket: 200 requests read in one poll of the loop ran one after the other there, health probes
 * behind them all. With the delayed give-back at most `maxInFlight` requests start their database
 * work per turn of the loop, the loop reads sockets (health probes) between, and the rest wait or
 * are refused at once. Each release counts once.
 *
 * @example
 * const admission = createAdmission({ maxInFlight: 4, maxQueued: 32, maxWaitMs: 2000 });
 * const release = admission.tryAcquire() ?? (await admission.acquire(request.signal));
 * try { await work(); } finally { release(); }
 */
export function createAdmission(options: AdmissionOptions): Admission {
  let inFlight = 0;
  const waiting: Waiter[] = [];
  const drain = drainClock();
  // `ahead`: the turns to be given back before the refused caller's would come.
  const busy = (reason: 'queue_full' | 'wait_timeout', ahead: number) =>
    serverBusy(options, reason, drain.retryAfterMs(ahead, options.maxWaitMs));

  const passOn = () => {
    drain.tick(Date.now());
    const next = waiting.shift();
    if (!next) {
      inFlight--;
      return;
    }
    // The turn stays counted while it passes to `next`, which can no longer time out or abort.
    next.settle();
    next.resolve(makeRelease());
  };
  const makeRelease = () => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      setImmediate(passOn);
    };
  };

  return {
    tryAcquire() {
      if (inFlight >= options.maxInFlight || waiting.length > 0) return undefined;
      inFlight++;
      return makeRelease();
    },
    acquire(signal) {
      const now = this.tryAcquire();
      if (now) return Promise.resolve(now);
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (waiting.length >= options.maxQueued) return Promise.reject(busy('queue_full', waiting.length + 1));
      return new Promise((resolve, reject) => {
        const leave = (error: unknown) => {
          const at = waiting.indexOf(waiter);
          if (at >= 0) waiting.splice(at, 1);
          waiter.settle();
          reject(error);
        };
        const onAbort = () => leave(signal!.reason);
        // Still in the queue when refused: it counts itself once.
        const timer = setTimeout(() => leave(busy('wait_timeout', waiting.length)), options.maxWaitMs);
        const waiter: Waiter = {
          resolve,
          reject,
          settle() {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiting.push(waiter);
      });
    },
    get inFlight() {
      return inFlight;
    },
    get queued() {
      return waiting.length;
    },
    options,
  };
}

/** Turns given back remembered (their times), to tell how fast the wait queue moves. */
const DRAIN_SAMPLES = 64;

/**
 * How long the wait queue takes to move, from the times of the last `DRAIN_SAMPLES` turns given
 * back (a ring: constant work per turn). A burst refused with a fixed `Retry-After` of the wait
 * bound (5 s) was told to stay away far longer than the queue took to drain (< 2 s for 1,000
 * messages on one API). Without recent turns (none within `maxWaitMs`) there is no evidence: the
 * wait bound, as before.
 */
function drainClock() {
  const times = new Array<number>(DRAIN_SAMPLES).fill(0);
  let count = 0;
  return {
    tick(now: number) {
      times[count % DRAIN_SAMPLES] = now;
      count++;
    },
    /** Milliseconds until `ahead` more turns are given back at the recent pace, in whole seconds, 1 s to `maxWaitMs`. */
    retryAfterMs(ahead: number, maxWaitMs: number): number {
      const ceiling = Math.max(1000, maxWaitMs);
      const samples = Math.min(count, DRAIN_SAMPLES);
      if (samples < 2) return ceiling;
      const newest = times[(count - 1) % DRAIN_SAMPLES]!;
      const oldest = times[(count - samples) % DRAIN_SAMPLES]!;
      const now = Date.now();
      if (now - newest > maxWaitMs) return ceiling;
      // From the oldest sample to now: a queue that stopped moving a moment ago counts as slower.
      const perMs = (samples - 1) / Math.max(1, now - oldest);
      return Math.min(ceiling, Math.max(1000, Math.ceil(ahead / perMs / 1000) * 1000));
    },
  };
}

/**
 * 503 `server_busy` with Retry-After. 503 rather than 429: the cause is everyone's load on this
 * process together, not the caller's own rate (which `rateLimit` answers with 429), and a 503 tells
 * a load balancer or client that another process, or this one shortly, can serve the request.
 */
function serverBusy(
  options: AdmissionOptions,
  reason: 'queue_full' | 'wait_timeout' | 'run_backlog',
  retryAfterMs = Math.max(1000, options.maxWaitMs),
): AppError {
  return errors.of({
    code: 'server_busy',
    message: 'This API process is busy with other requests; retry shortly',
    category: 'system',
    retryable: true,
    retryAfterMs,
    details: { reason },
  });
}

/**
 * Refuses a POST that would start a run (503 `server_busy`, reason `run_backlog`) while
 * `maxQueuedRuns` runs have not started (parked by the scheduler or queued, as `backlog` counts), before the request writes anything: in
 * the embedded mode every queued run is later database work in this process, and a backlog of
 * hundreds kept it busy for minutes after a burst while callers waited `RUN_WAIT_MS` for nothing.
 * `backlog` must be cheap (the scheduler keeps a counter; the in-process queue counts in memory).
 *
 * @example
 * v1.use('/conversations/:id/messages', runBacklog(() => unstartedRuns(), { ...options, maxQueuedRuns: 32 }));
 */
export function runBacklog(backlog: () => Promise<number>, options: AdmissionOptions): MiddlewareHandler {
  const max = options.maxQueuedRuns ?? 0;
  return async (c, next) => {
    if (max > 0 && c.req.method === 'POST') {
      // Queued runs leave at the worker's pace, seconds rather than milliseconds.
      if ((await backlog()) >= max) throw serverBusy(options, 'run_backlog', RUN_BACKLOG_RETRY_MS);
    }
    await next();
  };
}

const RUN_BACKLOG_RETRY_MS = 5000;

/** The client went away while its request waited: nobody reads the answer, so not a server error. */
function clientClosed(): AppError {
  return errors.of({
    code: 'client_closed_request',
    message: 'The client closed the request while it waited for a turn',
    category: 'user',
    retryable: false,
  });
}

const current = new AsyncLocalStorage<() => void>();

/**
 * Admits each request through `admission` before the handlers after it run, and gives its turn
 * back when they are done (or throw). A request's body is read first, so a slow upload waits
 * without a turn. An SSE answer gives its turn back as soon as the response starts (the stream
 * itself only relays events); a handler waiting for a run gives it back while it waits (see
 * {@link giveBackAdmissionTurn}). Past the wait queue or the wait bound: 503 `server_busy`.
 *
 * @example
 * v1.use('*', admit(createAdmission({ maxInFlight: 4, maxQueued: 32, maxWaitMs: 2000 })));
 */
export function admit(admission: Admission): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && c.req.method !== 'OPTIONS') {
      // Cached by Hono for the handler; a body over the limit is answered by bodyLimit after next().
      await c.req.arrayBuffer().catch(() => undefined);
    }
    const signal = c.req.raw.signal;
    const release =
      admission.tryAcquire() ??
      (await admission.acquire(signal).catch((error: unknown) => {
        throw signal.aborted ? clientClosed() : error;
      }));
    try {
      await current.run(release, next);
    } finally {
      release();
    }
  };
}

/**
 * Gives back the calling request's admission turn (if it holds one): a message POST waiting up to
 * `RUN_WAIT_MS` for its run does no database work meanwhile, and holding a turn for it would let a
 * few waiting callers refuse everyone else. Runs end at the worker's pace, so the reads after the
 * wait need no turn of their own. Called by `waitForRunEnd`; harmless outside admission.
 *
 * @example
 * giveBackAdmissionTurn();
 * await waitForTheRun();
 */
export function giveBackAdmissionTurn(): void {
  current.getStore()?.();
}
