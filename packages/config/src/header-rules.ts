/** RFC 9110 `token`: the only characters a header name may have. */
const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Connection-level headers a tool may not set: they would let a config smuggle or re-frame requests. */
const hopByHop = new Set(['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade']);
/** Headers the HTTP client computes itself; a tool setting them could re-target or re-frame the request. */
const clientOwned = new Set(['host', 'content-length', 'expect']);

/**
 * Why a tool may not send a header with this name, or undefined when it may. One rule set for the
 * loader (refused at upload) and the egress guard (refused at send, for anything that slips by).
 *
 * @example
 * headerNameProblem('Host'); // 'set by the HTTP client'
 */
export function headerNameProblem(name: string): string | undefined {
  if (!token.test(name)) return 'invalid header name';
  const lower = name.toLowerCase();
  if (hopByHop.has(lower) || lower.startsWith('proxy-')) return 'hop-by-hop header';
  if (clientOwned.has(lower)) return 'set by the HTTP client';
  return undefined;
}
