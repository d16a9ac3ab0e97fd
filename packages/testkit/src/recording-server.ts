import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { flatHeaders, readBodyText, sendJson, sleep, writable } from './fake-llm/http-io.ts';

/** One HTTP request as the recording server received it. */
export interface RecordedHttpRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  bodyText: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
  /** Date.now() when the body had been read. */
  receivedAt: number;
}

/** What the recording server answers: a string `body` is sent verbatim, any other value as JSON, none as an empty body. */
export interface RecordingResponse {
  /** Default 200. */
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Wait this long before answering (to test callers' timeouts). */
  delayMs?: number;
}

export type RecordingResponder = (req: RecordedHttpRequest) => RecordingResponse | Promise<RecordingResponse>;

/** A running recording server. */
export interface RecordingServer {
  /** 'http://127.0.0.1:PORT' */
  url: string;
  /** Every request received, in order. */
  requests: RecordedHttpRequest[];
  /** Replaces the answer; the default is 200 `{"ok":true,"received":<json>}`. */
  respondWith(fn: RecordingResponder): void;
  /** Resolves with the requests once at least `n` arrived; rejects after `timeoutMs` (default 5000). */
  waitForRequests(n: number, timeoutMs?: number): Promise<RecordedHttpRequest[]>;
  /** Clears the requests and restores the default answer. */
  reset(): void;
  close(): Promise<void>;
}

const defaultResponder: RecordingResponder = (req) => ({ body: { ok: true, received: req.json } });

function parseJson(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function record(req: IncomingMessage): Promise<RecordedHttpRequest> {
  const url = new URL(req.url ?? '/', 'http://recording');
  const bodyText = await readBodyText(req);
  return {
    method: req.method ?? 'GET',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: flatHeaders(req.headers),
    bodyText,
    json: parseJson(bodyText),
    receivedAt: Date.now(),
  };
}

function send(res: ServerResponse, answer: RecordingResponse): void {
  const status = answer.status ?? 200;
  if (answer.body !== undefined && typeof answer.body !== 'string') {
    sendJson(res, status, answer.body, answer.headers);
    return;
  }
  if (!writable(res)) return;
  const contentType = answer.body === undefined ? {} : { 'content-type': 'text/plain; charset=utf-8' };
  res.writeHead(status, { ...contentType, ...answer.headers });
  res.end(answer.body);
}

interface Waiter {
  n: number;
  resolve: (requests: RecordedHttpRequest[]) => void;
}

interface State {
  requests: RecordedHttpRequest[];
  responder: RecordingResponder;
  waiters: Set<Waiter>;
}

function notify(state: State): void {
  for (const waiter of state.waiters) {
    if (state.requests.length < waiter.n) continue;
    state.waiters.delete(waiter);
    waiter.resolve([...state.requests]);
  }
}

async function handle(state: State, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const recorded = await record(req);
  state.requests.push(recorded);
  notify(state);
  let answer: RecordingResponse;
  try {
    answer = await state.responder(recorded);
  } catch (error) {
    answer = { status: 500, body: { ok: false, error: error instanceof Error ? error.message : String(error) } };
  }
  await sleep(answer.delayMs);
  send(res, answer);
}

function waitFor(state: State, n: number, timeoutMs: number): Promise<RecordedHttpRequest[]> {
  if (state.requests.length >= n) return Promise.resolve([...state.requests]);
  return new Promise((resolve, reject) => {
    const waiter: Waiter = {
      n,
      resolve: (requests) => {
        clearTimeout(timer);
        resolve(requests);
      },
    };
    const timer = setTimeout(() => {
      state.waiters.delete(waiter);
      reject(
        new Error(`Recording server: expected ${n} request(s) within ${timeoutMs} ms, got ${state.requests.length}`),
      );
    }, timeoutMs);
    state.waiters.add(waiter);
  });
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Starts an HTTP server that records every request and answers from a programmable responder:
 * the stand-in for a tool's remote endpoint in tests.
 *
 * @example
 * const endpoint = await startRecordingServer();
 * endpoint.respondWith(() => ({ status: 201, body: { id: 7 } }));
 * await fetch(`${endpoint.url}/contacts?src=test`, { method: 'POST', body: JSON.stringify({ email: 'a@b.c' }) });
 * const [req] = await endpoint.waitForRequests(1); // req.json → { email: 'a@b.c' }, req.query.src → 'test'
 * await endpoint.close();
 */
export async function startRecordingServer(options: { port?: number } = {}): Promise<RecordingServer> {
  const state: State = { requests: [], responder: defaultResponder, waiters: new Set() };
  const server = createServer((req, res) => {
    // Callers that give up (timeouts under test) reset their sockets; that is expected, not a failure.
    res.on('error', () => {});
    req.on('error', () => {});
    handle(state, req, res).catch(() => res.destroy());
  });
  const port = await listen(server, options.port ?? 0);
  return {
    url: `http://127.0.0.1:${port}`,
    requests: state.requests,
    respondWith: (fn) => {
      state.responder = fn;
    },
    waitForRequests: (n, timeoutMs = 5000) => waitFor(state, n, timeoutMs),
    reset: () => {
      state.requests.length = 0;
      state.responder = defaultResponder;
    },
    close: () =>
      new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
