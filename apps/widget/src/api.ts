import { ProblemError } from '@agentry/contract';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface Api {
  request(
    method: string,
    path: string,
    body?: unknown,
    init?: { accept?: string; signal?: AbortSignal },
  ): Promise<Response>;
  json<T>(method: string, path: string, body?: unknown): Promise<T>;
}

/** Calls the API with the publishable key (and the end user's token once `identify` set one). */
export function createApi(base: string, key: string, endUserToken: () => string | undefined): Api {
  async function request(
    method: string,
    path: string,
    body?: unknown,
    init: { accept?: string; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (init.accept) headers.accept = init.accept;
    const token = endUserToken();
    if (token) headers['x-end-user-token'] = token;
    let res: Response;
    try {
      res = await fetch(base + path, {
        method,
        headers,
        credentials: 'omit',
        cache: 'no-store',
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        ...(init.signal ? { signal: init.signal } : {}),
      });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw ProblemError.network(String(error));
    }
    if (res.ok) return res;
    throw ProblemError.fromResponse(
      res.status,
      await res.json().catch(() => undefined),
      res.headers.get('retry-after'),
    );
  }
  return {
    request,
    json: async <T>(method: string, path: string, body?: unknown) =>
      (await (await request(method, path, body)).json()) as T,
  };
}

/** Feeds a `text/event-stream` body to `onEvent` until it ends; throws when the connection breaks. */
export async function readEventStream(res: Response, onEvent: (event: EventSourceMessage) => void): Promise<void> {
  if (!res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = createParser({ onEvent });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(value);
    }
  } finally {
    reader.releaseLock();
  }
}
