import {
  createEgressPolicy,
  type EgressError,
  type EgressPolicy,
  egressFetch,
  isEgressError,
  strictEgressPolicy,
} from '@agentry/http-tools';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** The fetch an MCP transport uses, plus the last refusal of the egress guard (SSE hides it in an event). */
export interface EgressTransportFetch {
  fetch: FetchLike;
  /** Set when the guard refused a request of this session (scheme, address, DNS, header). */
  refusal(): EgressError | undefined;
}

/**
 * A `fetch` for the MCP SDK's HTTP transports that sends every request through `egressFetch`: the
 * same SSRF rules, allowlist, redirect checks and body cap as HTTP tools, and the same rule that
 * the values of `secrets` (those the server's URL and headers read) never follow a redirect to
 * another origin. `lifetimeMs` replaces
 * the policy's per-request deadline, because an MCP session keeps streams open (the SSE
 * transport's event stream, Streamable HTTP's response streams) for as long as the session runs.
 *
 * @example
 * const { fetch } = egressTransportFetch(policy, 60_000, [token]);
 * new StreamableHTTPClientTransport(new URL(url), { fetch });
 */
export function egressTransportFetch(
  policy: EgressPolicy = strictEgressPolicy,
  lifetimeMs = policy.timeoutMs,
  secrets: readonly string[] = [],
): EgressTransportFetch {
  const session = createEgressPolicy({
    allowlist: policy.allowlist,
    lookup: policy.lookup,
    maxRedirects: policy.maxRedirects,
    maxResponseBytes: policy.maxResponseBytes,
    timeoutMs: Math.max(1, Math.round(lifetimeMs)),
  });
  let refused: EgressError | undefined;
  const send: FetchLike = async (url, init) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = init?.body;
    if (body !== undefined && body !== null && typeof body !== 'string') {
      throw new TypeError('MCP requests carry JSON text bodies only');
    }
    try {
      return await egressFetch(
        { method: init?.method ?? 'GET', url: String(url), headers, ...(typeof body === 'string' ? { body } : {}) },
        { policy: session, secrets, ...(init?.signal ? { signal: init.signal } : {}) },
      );
    } catch (error) {
      if (isEgressError(error)) refused = error;
      throw error;
    }
  };
  return { fetch: send, refusal: () => refused };
}
