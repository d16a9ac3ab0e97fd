import { createEgressPolicy, type EgressPolicy, strictEgressPolicy } from './egress/policy.ts';
import { egressFetch } from './egress.ts';

/** Headers the client sets itself (the guard refuses them from a caller): left for undici to write. */
const CLIENT_HEADERS = new Set([
  'host',
  'content-length',
  'expect',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * A `fetch` for a model SDK whose base URL a tenant chose (its own OpenAI-compatible server, a
 * gateway): every request goes through `egressFetch`, so a tenant cannot point the worker at a
 * private or metadata address the platform's rules refuse (the same rules, allowlist and redirect
 * checks as its tools). `lifetimeMs` replaces the policy's per-request deadline: a streamed answer
 * may take minutes (the SDK keeps its own timeout too).
 *
 * @example
 * createOpenAIModel({ apiKey, model, baseURL, fetch: egressModelFetch(policy) });
 */
export function egressModelFetch(policy: EgressPolicy = strictEgressPolicy, lifetimeMs = 600_000): typeof fetch {
  const session = createEgressPolicy({
    allowlist: policy.allowlist,
    lookup: policy.lookup,
    maxRedirects: policy.maxRedirects,
    maxResponseBytes: policy.maxResponseBytes,
    timeoutMs: Math.max(1, Math.round(lifetimeMs)),
  });
  const send = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : undefined;
    const headers: Record<string, string> = {};
    new Headers(init?.headers ?? request?.headers).forEach((value, name) => {
      if (!CLIENT_HEADERS.has(name)) headers[name] = value;
    });
    const body = init?.body;
    if (body !== undefined && body !== null && typeof body !== 'string') {
      throw new TypeError('Model requests carry JSON text bodies only');
    }
    const signal = init?.signal ?? request?.signal;
    return egressFetch(
      {
        method: init?.method ?? request?.method ?? 'GET',
        url: request ? request.url : String(input),
        headers,
        ...(typeof body === 'string' ? { body } : {}),
      },
      { policy: session, ...(signal ? { signal } : {}) },
    );
  };
  return send as typeof fetch;
}
