import type { Problem } from '@agentry/contract';
import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream';
import { formatIssues } from './format-issues.ts';

/**
 * Why a call to the platform gave no usable answer: it could not be reached, refused (the
 * problem's detail, code and field paths are in the message) or answered something else. The
 * commands print the message and exit 2.
 */
export class ApiFailure extends Error {
  override name = 'ApiFailure';
}

/** The platform's HTTP API as the CLI uses it: JSON calls and event streams, with one deadline. */
export interface ApiClient {
  /** The answer's JSON; throws `ApiFailure` for anything but a 2xx JSON answer, or the deadline's reason. */
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** An SSE stream's events, from `lastEventId` on when given; ends when the server ends the stream. */
  events(path: string, lastEventId?: string): AsyncIterable<EventSourceMessage>;
}

export interface ApiClientOptions {
  /** The API's origin, e.g. `http://127.0.0.1:3000`. */
  url: string;
  /** A tenant's secret key. */
  key: string;
  /** Aborts every request and stream (the command's `--timeout`). */
  signal: AbortSignal;
}

/**
 * The CLI's only way to talk to the platform. Requests go to the URL the person running the CLI
 * chose (`--api-url`), never to a tenant-controlled address, so they are plain `fetch` (the
 * no-raw-fetch guard lists this file with that reason).
 *
 * @example
 * const api = createApiClient({ url: 'http://127.0.0.1:3000', key: 'sk_…', signal: AbortSignal.timeout(600_000) });
 * const agent = await api.call<{ name: string }>('GET', `/v1/agents/${id}`);
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const base = options.url.replace(/\/+$/, '');
  const send = async (method: string, path: string, init: { body?: unknown; headers?: Record<string, string> }) => {
    const headers: Record<string, string> = { authorization: `Bearer ${options.key}`, ...init.headers };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await fetch(`${base}${path}`, {
        method,
        headers,
        signal: options.signal,
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      });
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason;
      throw new ApiFailure(
        `cannot reach the Agentry API at ${base} (${causeOf(error)}): start it, or set --api-url or AGENTRY_API_URL`,
      );
    }
  };
  return {
    async call<T>(method: string, path: string, body?: unknown): Promise<T> {
      const res = await send(method, path, { body, headers: { accept: 'application/json' } });
      const text = await res.text();
      const json = parseJson(text);
      if (!res.ok) throw new ApiFailure(refusal(method, path, res.status, json, text));
      if (json === undefined) throw new ApiFailure(`${method} ${path} answered ${res.status} without JSON`);
      return json as T;
    },
    async *events(path: string, lastEventId?: string) {
      const res = await send('GET', path, {
        headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      });
      if (!res.ok || !res.body) {
        const text = await res.text();
        throw new ApiFailure(refusal('GET', path, res.status, parseJson(text), text));
      }
      try {
        yield* res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
      } catch (error) {
        if (options.signal.aborted) throw options.signal.reason;
        throw new ApiFailure(`the event stream ${path} broke off (${causeOf(error)})`);
      }
    },
  };
}

/** A refusal in one message: what was asked, the status and code, the problem's detail and each field issue. */
function refusal(method: string, path: string, status: number, json: unknown, text: string): string {
  const problem = isProblem(json) ? json : undefined;
  const head = `the API refused ${method} ${path}: ${status}${problem ? ` ${problem.code}` : ''}`;
  const detail = problem ? problem.detail : text.trim().slice(0, 200) || '(no body)';
  const hint = status === 401 ? ' (check --key or AGENTRY_API_KEY)' : '';
  const issues = problem?.errors?.length ? `\n${formatIssues(problem.errors)}` : '';
  return `${head}: ${detail}${hint}${issues}`;
}

function isProblem(value: unknown): value is Problem {
  return typeof value === 'object' && value !== null && typeof (value as Problem).code === 'string';
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** fetch's TypeError hides the reason (ECONNREFUSED, ENOTFOUND) in `cause`. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
