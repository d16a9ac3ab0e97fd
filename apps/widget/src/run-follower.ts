import { FINAL_RUN_STATUSES, ProblemError } from '@agentry/contract';
import type { EventSourceMessage } from 'eventsource-parser';
import { type Api, readEventStream } from './api.ts';

/** Run statuses after which no event follows (the contract's list, shared with the API). */
export const FINAL_STATUSES = new Set<string>(FINAL_RUN_STATUSES);

/** What following a run needs from the widget. */
export interface FollowHooks {
  /** Applies one event; true for the run's final one. */
  onEvent(event: EventSourceMessage): boolean;
  /** The run id, when the caller did not know it (the stream's response had no `Location`). */
  resolveRunId(): Promise<string>;
  /** The last event id applied: a reconnect asks for the events after it. */
  lastEventId(): string | undefined;
  /** The connection dropped and a retry is about to wait. */
  onRetry(): void;
  /** Events flow again after a retry. */
  onResumed(): void;
  /** The run ended (its final event) or cannot be followed (`error`, an HTTP 4xx). */
  onEnd(error?: ProblemError): void;
}

/** Waits `ms`, or less when the browser comes back online or the follower is stopped. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    const onOnline = () => done();
    function done() {
      clearTimeout(timer);
      removeEventListener('online', onOnline);
      resolve();
    }
    addEventListener('online', onOnline);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** A 4xx other than 429 will not get better by retrying. */
function isFatal(error: unknown): error is ProblemError {
  return error instanceof ProblemError && error.kind === 'http' && error.status !== 429 && error.status < 500;
}

/**
 * Reads a run's events until its final status. `first` is the response of the message post, when
 * there is one. When the connection drops it reconnects to
 * `GET /v1/runs/{id}/events?after=<last event id>` with backoff (0.5 s doubling to 8 s, cut short
 * by the `online` event), so no text is lost or repeated. Returns quietly once `signal` aborts.
 */
export async function followRun(
  api: Api,
  first: Response | undefined,
  runId: string | undefined,
  signal: AbortSignal,
  hooks: FollowHooks,
): Promise<void> {
  let res = first;
  let attempt = 0;
  for (;;) {
    let final = false;
    try {
      if (!res) {
        const id = runId ?? (await hooks.resolveRunId());
        runId = id;
        const after = hooks.lastEventId();
        res = await api.request(
          'GET',
          `/v1/runs/${id}/events${after ? `?after=${encodeURIComponent(after)}` : ''}`,
          undefined,
          {
            accept: 'text/event-stream',
            signal,
          },
        );
      }
      await readEventStream(res, (event) => {
        if (signal.aborted) return;
        if (attempt > 0) {
          attempt = 0;
          hooks.onResumed();
        }
        if (hooks.onEvent(event)) final = true;
      });
    } catch (error) {
      if (signal.aborted) return;
      if (isFatal(error)) {
        hooks.onEnd(error);
        return;
      }
    }
    res = undefined;
    if (signal.aborted) return;
    if (final) {
      hooks.onEnd();
      return;
    }
    attempt++;
    hooks.onRetry();
    await sleep(Math.min(500 * 2 ** (attempt - 1), 8000), signal);
    if (signal.aborted) return;
  }
}
