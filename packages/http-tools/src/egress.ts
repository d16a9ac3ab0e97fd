import type { RenderedRequest } from '@agentry/config';

export interface EgressOptions {
  signal?: AbortSignal;
  /** The fetch to use (tests pass their own); defaults to `globalThis.fetch`. */
  fetch?: typeof fetch;
}

/**
 * The one place Agentry sends a request to a tenant-configured address. Every outbound tool call
 * goes through here so that egress policy (SSRF protection, allow-lists) has a single choke point.
 *
 * @example
 * const res = await egressFetch({ method: 'GET', url: 'https://api.example.com/x', headers: {} }, { signal });
 */
export async function egressFetch(request: RenderedRequest, options: EgressOptions = {}): Promise<Response> {
  const send = options.fetch ?? globalThis.fetch;
  return send(request.url, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
    // Redirects could lead anywhere; a tool gets exactly the address its config names.
    redirect: 'manual',
    ...(options.signal ? { signal: options.signal } : {}),
  });
}
