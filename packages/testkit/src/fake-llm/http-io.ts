import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/**
 * Reads a request body as UTF-8 text.
 *
 * @example
 * const text = await readBodyText(req);
 */
export async function readBodyText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Node's header map flattened to one string per (lower-case) name; repeated headers are joined with ', '.
 *
 * @example
 * flatHeaders(req.headers)['content-type']; // 'application/json'
 */
export function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * Resolves after `ms`, or right away once `signal` aborts (the client went away: no point waiting).
 *
 * @example
 * await sleep(50, controller.signal);
 */
export function sleep(ms: number | undefined, signal?: AbortSignal): Promise<void> {
  if (!ms || ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * True while the response can still be written to (the client has not gone away).
 *
 * @example
 * if (writable(res)) res.write(chunk);
 */
export function writable(res: ServerResponse): boolean {
  return !res.destroyed && !res.writableEnded;
}

/**
 * Sends a JSON body with the given status and extra headers, unless the client already left.
 *
 * @example
 * sendJson(res, 200, { ok: true }, { 'x-request-id': 'req_1' });
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (!writable(res) || res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/**
 * An AbortSignal that fires when the client disconnects before the response is complete.
 *
 * @example
 * const signal = clientGone(res);
 */
export function clientGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * Parses a JSON object body; anything else (invalid JSON, an array, a scalar) is undefined.
 *
 * @example
 * parseJsonObject('{"a":1}'); // { a: 1 }
 */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
