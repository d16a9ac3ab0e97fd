import type { Problem, WidgetConfig } from '@agentry/contract';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** A failed request: `network` (no answer at all) or `http` (a problem+json answer). */
export class ApiError extends Error {
  readonly kind: 'network' | 'http';
  readonly status: number;
  readonly code: string;
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: 'network' | 'http', status: number, code: string, message: string, retryAfterSeconds?: number) {
    super(message);
    this.kind = kind;
    this.status = status;
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export interface Bootstrap {
  agent_id: string;
  /** The agent config's `widget` section without its origin allow-list. */
  widget: Omit<WidgetConfig, 'allowed_origins'>;
  language: 'en' | 'zh' | null;
  context_variables: string[];
  client_tools: string[];
}

export interface TranscriptPart {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  tool_call_id?: string;
}

export interface Transcript {
  id: string;
  messages: Array<{ role: string; run_id: string | null; content: TranscriptPart[] }>;
}

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
      throw new ApiError('network', 0, 'network_error', String(error));
    }
    if (res.ok) return res;
    const problem: Partial<Record<keyof Problem, unknown>> = await res.json().catch(() => ({}));
    const retryAfter = Number(res.headers.get('retry-after'));
    throw new ApiError(
      'http',
      res.status,
      typeof problem.code === 'string' ? problem.code : `http_${res.status}`,
      typeof problem.detail === 'string' ? problem.detail : res.statusText,
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
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
