/**
 * The suite's API client, behaving as a careful real client: it retries 503 and 429 after their
 * `Retry-After` (bounded), retries a request whose connection failed (the API was killed) when
 * it is safe (reads, and POSTs carrying an `Idempotency-Key`), and counts every answer's status
 * so the invariants can say whether the API ever answered 500.
 *
 * @example
 * const api = createApiClient({ baseUrl, key, stats: newHttpStats() });
 * const run = await api.request('GET', `/v1/runs/${id}`);
 */

/** Every answer the API gave, by status, and the ones that break the "no 5xx" promise. */
export interface HttpStats {
  byStatus: Map<number, number>;
  /** 5xx other than 503, and 503/429 without Retry-After: at most 50 kept as evidence. */
  bad: Array<{ status: number; method: string; path: string; body: string; at: number }>;
  badCount: number;
  networkErrors: number;
  retries: number;
}

export function newHttpStats(): HttpStats {
  return { byStatus: new Map(), bad: [], badCount: 0, networkErrors: 0, retries: 0 };
}

export interface ApiResult {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: API answers read ad hoc by the checks
  json: any;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  idempotencyKey?: string;
  /** Give up retrying after this long (default 45 s: longer than every injected outage). */
  retryForMs?: number;
  /** Abort one attempt after this long (default 30 s). */
  attemptTimeoutMs?: number;
  /** Return the response unread (streams). */
  raw?: boolean;
}

/** The client stopped retrying; `last` is the last status (0: no answer at all). */
export class GaveUpError extends Error {
  readonly last: number;
  constructor(message: string, last: number) {
    super(message);
    this.last = last;
  }
}

const MAX_RETRY_AFTER_MS = 5000;

export interface ApiClient {
  request(method: string, path: string, options?: RequestOptions): Promise<ApiResult & { response?: Response }>;
}

export function createApiClient(options: { baseUrl: string; key: string; stats: HttpStats }): ApiClient {
  const { stats } = options;
  return {
    async request(method, path, request = {}) {
      const until = Date.now() + (request.retryForMs ?? 45_000);
      const retrySafe = method === 'GET' || request.idempotencyKey !== undefined;
      let last = 0;
      for (let attempt = 0; attempt < 500; attempt++) {
        let res: Response;
        try {
          res = await fetch(`${options.baseUrl}${path}`, {
            method,
            headers: headersFor(options.key, request),
            ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
            signal: AbortSignal.timeout(request.attemptTimeoutMs ?? 30_000),
          });
        } catch (error) {
          stats.networkErrors++;
          if (!retrySafe || Date.now() > until) throw new GaveUpError(`${method} ${path}: ${String(error)}`, 0);
          stats.retries++;
          await sleep(300);
          continue;
        }
        last = res.status;
        const evidence = count(stats, res, method, path);
        const wait = retryWait(res);
        if (wait !== undefined && Date.now() + wait < until) {
          await res.body?.cancel().catch(() => {});
          stats.retries++;
          await sleep(wait);
          continue;
        }
        if (request.raw && res.ok) return { status: res.status, headers: res.headers, json: undefined, response: res };
        const text = await res.text().catch(() => '');
        const json = parseJson(text);
        if (evidence) evidence.body = text.slice(0, 300);
        return { status: res.status, headers: res.headers, json };
      }
      throw new GaveUpError(`${method} ${path}: retries exhausted`, last);
    },
  };
}

function headersFor(key: string, request: RequestOptions): Record<string, string> {
  return {
    authorization: `Bearer ${key}`,
    ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...(request.idempotencyKey ? { 'idempotency-key': request.idempotencyKey } : {}),
    ...request.headers,
  };
}

/** 503 and 429 with Retry-After, and 409 for a key still being handled, are worth another try. */
function retryWait(res: Response): number | undefined {
  const retryable = res.status === 503 || res.status === 429 || res.status === 409;
  if (!retryable) return undefined;
  const header = Number(res.headers.get('retry-after'));
  if (res.status === 409 && !res.headers.get('retry-after')) return undefined;
  return Math.min(Number.isFinite(header) && header >= 0 ? header * 1000 : 1000, MAX_RETRY_AFTER_MS) || 200;
}

function isBad(res: Response): boolean {
  if (res.status === 503 || res.status === 429) return !res.headers.get('retry-after');
  return res.status >= 500;
}

/** Counts the answer; a bad one is also kept (the first 50) and returned, for its body to be added. */
function count(stats: HttpStats, res: Response, method: string, path: string): HttpStats['bad'][number] | undefined {
  stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);
  if (!isBad(res)) return undefined;
  stats.badCount++;
  if (stats.bad.length >= 50) return undefined;
  const entry = { status: res.status, method, path, body: '', at: Date.now() };
  stats.bad.push(entry);
  return entry;
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
