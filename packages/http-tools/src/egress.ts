import { createDeadlineSignal, type DeadlineSignal } from '@agentry/agent';
import type { RenderedRequest } from '@agentry/config';
import { type Dispatcher, fetch as undiciFetch } from 'undici';
import { checkTarget } from './egress/check-target.ts';
import { EgressError } from './egress/egress-error.ts';
import { checkRequestHeaders, headersForRedirect } from './egress/headers.ts';
import { limitBody } from './egress/limit-body.ts';
import { pooledPinnedAgent } from './egress/pinned-agent.ts';
import { type EgressPolicy, strictEgressPolicy } from './egress/policy.ts';
import { assertNoSecretCrossesOrigin, secretForms } from './egress/secret-redirect.ts';

export { type AddressClass, type AddressRule, classifyAddress } from './egress/address-rules.ts';
export { invalidAllowlistEntries, mergeAllowlists } from './egress/allowlist.ts';
export { EgressError, type EgressErrorCode, isEgressError } from './egress/egress-error.ts';
export { crossOriginSafeHeaders } from './egress/headers.ts';
export { closePooledAgents } from './egress/pinned-agent.ts';
export {
  createEgressPolicy,
  type EgressLookup,
  type EgressPolicy,
  type EgressPolicyOptions,
  type ResolvedAddress,
  strictEgressPolicy,
  withAllowlist,
} from './egress/policy.ts';

/** What {@link egressFetch} hands to the underlying fetch: `dispatcher` pins the checked addresses. */
export type EgressSendInit = {
  method: string;
  headers: Record<string, string>;
  body?: string;
  redirect: 'manual';
  signal: AbortSignal;
  dispatcher: Dispatcher;
};

/** The underlying fetch; only tests replace it, and one that ignores `dispatcher` loses address pinning. */
export type EgressSend = (url: string, init: EgressSendInit) => Promise<Response>;

export interface EgressOptions {
  /** The rules to apply (default: {@link strictEgressPolicy}, public addresses only). */
  policy?: EgressPolicy;
  signal?: AbortSignal;
  /** @deprecated test seam only: replaces undici's fetch; every check still runs before it is called. */
  fetch?: EgressSend | typeof fetch;
  /**
   * The secret values filled into the request (`{{secrets.X}}`). None of them ever follows a
   * redirect to another origin: headers carrying one are dropped, and a redirect that would still
   * carry one (in its new URL, a re-sent body, or the repeated URL of a 307/308) is refused with
   * `egress_redirect_refused`.
   */
  secrets?: readonly string[];
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);
const nullBodyStatuses = new Set([204, 205, 304]);

const defaultSend: EgressSend = (url, init) => undiciFetch(url, init) as unknown as Promise<Response>;

/**
 * The one place Agentry sends a request to a tenant-controlled address (tools now; webhooks and MCP
 * later). Per hop it checks the scheme (http/https), resolves the host and refuses if any address
 * is loopback, private, link-local/metadata, CGNAT, multicast, reserved, unspecified, IPv6 ULA or
 * link-local, or an IPv6 form carrying such an IPv4 address — unless allowlisted — and then connects
 * to exactly the checked addresses (no DNS-rebinding window), over a kept-alive connection when an
 * earlier request to the same origin was checked to the same addresses. Redirects are followed by hand up to
 * `policy.maxRedirects`, each hop re-checked; 303 (and 301/302 after POST) become a body-less GET;
 * a cross-origin hop keeps only {@link crossOriginSafeHeaders} (minus any carrying one of
 * `options.secrets`), and is refused when it would still carry a secret (see {@link EgressOptions.secrets}). Header injection (CR/LF, `Host`,
 * hop-by-hop headers) is refused before anything is sent. The body is capped at
 * `policy.maxResponseBytes` and the whole exchange at `policy.timeoutMs`.
 *
 * Refusals throw {@link EgressError} (`egress_forbidden_scheme`, `egress_forbidden_address`,
 * `egress_dns_failed`, `egress_too_many_redirects`, `egress_redirect_refused`, `egress_bad_header`); reading past the size cap
 * fails with `egress_response_too_large`. Network failures and aborts throw as fetch does.
 *
 * @example
 * const policy = createEgressPolicy({ allowlist: ['10.0.0.0/8'] });
 * const res = await egressFetch({ method: 'GET', url: 'https://api.example.com/x', headers: {} }, { policy, signal });
 */
export async function egressFetch(request: RenderedRequest, options: EgressOptions = {}): Promise<Response> {
  const policy = options.policy ?? strictEgressPolicy;
  const send = (options.fetch as EgressSend | undefined) ?? defaultSend;
  checkRequestHeaders(request.headers);
  // Let go of (timer, listener on the caller's signal) once the body is read or the exchange failed,
  // not only when the deadline passes: a finished call would hold them for the whole timeout.
  const deadline = createDeadlineSignal(options.signal, policy.timeoutMs, 'The tool did not answer in time');
  try {
    return await exchange(request, policy, send, deadline, secretForms(options.secrets ?? []));
  } catch (error) {
    deadline.dispose();
    throw error;
  }
}

async function exchange(
  request: RenderedRequest,
  policy: EgressPolicy,
  send: EgressSend,
  deadline: DeadlineSignal,
  secrets: readonly string[],
): Promise<Response> {
  const { signal } = deadline;
  let url = new URL(request.url);
  let method = request.method;
  let body = request.body;
  let headers: Record<string, string> = { ...request.headers };
  for (let hop = 0; ; hop += 1) {
    const target = await checkTarget(url, policy, { hop, signal });
    // Kept for the next request to this origin and these addresses (keep-alive); an aborted or
    // cut-off body makes undici close that one socket.
    const agent = pooledPinnedAgent(url.origin, target.addresses);
    const response = await send(url.href, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      redirect: 'manual',
      signal,
      dispatcher: agent,
    });
    const next = redirectTarget(response, url);
    if (!next) return finalResponse(response, url, hop, policy.maxResponseBytes, deadline.dispose);
    await response.body?.cancel().catch(() => {});
    if (hop >= policy.maxRedirects) {
      throw new EgressError(
        'egress_too_many_redirects',
        policy.maxRedirects === 0
          ? 'The tool answered with a redirect, and redirects are not followed.'
          : `The tool redirected more than ${policy.maxRedirects} times.`,
        { maxRedirects: policy.maxRedirects },
      );
    }
    const toGet =
      (response.status === 303 && method !== 'GET' && method !== 'HEAD') ||
      ((response.status === 301 || response.status === 302) && method === 'POST');
    if (toGet) {
      method = 'GET';
      body = undefined;
    }
    assertNoSecretCrossesOrigin(
      { status: response.status, from: url, to: next, resentBody: body, hop: hop + 1 },
      secrets,
    );
    headers = headersForRedirect(headers, {
      crossOrigin: next.origin !== url.origin,
      dropBody: toGet,
      secretForms: secrets,
    });
    url = next;
  }
}

function redirectTarget(response: Response, current: URL): URL | undefined {
  if (!redirectStatuses.has(response.status)) return undefined;
  const location = response.headers.get('location');
  if (location === null) return undefined;
  try {
    const next = new URL(location, current);
    if (next.hash === '' && current.hash !== '') next.hash = current.hash;
    return next;
  } catch {
    return undefined; // an unusable Location: the caller gets the 3xx as it is
  }
}

/** Re-wraps the response with a size-capped body; `onEnd` runs when that body ends, fails or is cancelled. */
function finalResponse(response: Response, url: URL, hop: number, maxBytes: number, onEnd: () => void): Response {
  const headers = new Headers();
  for (const [name, value] of response.headers) headers.append(name, value);
  const init = { status: response.status, statusText: response.statusText, headers };
  let wrapped: Response;
  if (nullBodyStatuses.has(response.status) || !response.body) {
    void response.body?.cancel().catch(() => {});
    onEnd();
    wrapped = new Response(null, init);
  } else {
    wrapped = new Response(limitBody(response.body, maxBytes, onEnd), init);
  }
  Object.defineProperties(wrapped, { url: { value: url.href }, redirected: { value: hop > 0 } });
  return wrapped;
}
