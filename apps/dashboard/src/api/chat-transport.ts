import { ProblemError } from '@agentry/contract';
import { apiRequest, failure } from './client.ts';
import { createSseParser } from './sse-parser.ts';

const enc = encodeURIComponent;
const MAX_RECONNECTS = 6;

/** What a streamed run reports while it goes. */
export interface RunStreamHandlers {
  /** The run's id, as soon as the API names it (the streaming POST's `Location`). */
  onRunId(runId: string): void;
  /** Each event of the run, in order, exactly once (also across reconnects). */
  onEvent(event: { type: string; final?: boolean; [key: string]: unknown }): void;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** Reads one `text/event-stream` body; true when the run's final event came. */
async function readStream(
  res: Response,
  onMessage: (id: string | undefined, data: Record<string, unknown>) => void,
): Promise<boolean> {
  if (!res.body) return false;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = createSseParser();
  let final = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return final;
      for (const message of parser.feed(value)) {
        let data: Record<string, unknown>;
        try {
          data = JSON.parse(message.data);
        } catch {
          continue;
        }
        if (typeof data.type !== 'string') data.type = message.event;
        onMessage(message.id, data);
        if (data.final === true) final = true;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * Follows a run's events until its final status: the given response first, then, when the
 * connection drops, `GET /v1/runs/{id}/events?after=<last id>` with backoff, so no event is lost
 * or repeated.
 */
export async function followRun(
  runId: string,
  handlers: RunStreamHandlers,
  signal?: AbortSignal,
  first?: Response,
): Promise<void> {
  let res = first;
  let lastId: string | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      if (!res) {
        const path = `/v1/runs/${enc(runId)}/events${lastId ? `?after=${enc(lastId)}` : ''}`;
        res = await apiRequest('GET', path, { accept: 'text/event-stream', ...(signal ? { signal } : {}) });
        if (!res.ok) throw await failure(res, path);
      }
      const final = await readStream(res, (id, data) => {
        if (id) lastId = id;
        attempt = 0;
        handlers.onEvent(data as { type: string });
      });
      if (final) return;
    } catch (error) {
      if (signal?.aborted) return;
      // The API refused (not found, forbidden…): reconnecting would not help.
      if (error instanceof ProblemError && error.status >= 400 && error.status < 500 && error.status !== 429)
        throw error;
      if (attempt >= MAX_RECONNECTS) throw error;
    }
    if (signal?.aborted) return;
    res = undefined;
    await sleep(Math.min(500 * 2 ** attempt, 4000), signal);
  }
}

/**
 * Sends a message and streams the run it starts (`Accept: text/event-stream` on
 * `POST /v1/conversations/{id}/messages`): tokens, tool calls and results arrive as they happen.
 */
export async function streamMessage(
  conversationId: string,
  content: string,
  handlers: RunStreamHandlers,
  signal?: AbortSignal,
): Promise<string> {
  const path = `/v1/conversations/${enc(conversationId)}/messages`;
  const res = await apiRequest('POST', path, {
    body: { content },
    accept: 'text/event-stream',
    ...(signal ? { signal } : {}),
  });
  if (!res.ok) throw await failure(res, path);
  const runId = /\/v1\/runs\/([^/?#]+)/.exec(res.headers.get('location') ?? '')?.[1];
  if (!runId)
    throw new ProblemError({
      title: 'no run',
      status: res.status,
      detail: 'The API did not name the run',
      code: 'run_not_found',
    });
  handlers.onRunId(decodeURIComponent(runId));
  await followRun(decodeURIComponent(runId), handlers, signal, res);
  return decodeURIComponent(runId);
}
