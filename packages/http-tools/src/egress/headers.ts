import { headerNameProblem } from '@agentry/config';
import { EgressError } from './egress-error.ts';
import { carriesSecret } from './secret-redirect.ts';

const forbiddenValue = /[\r\n\0]/;

/**
 * Headers kept on a cross-origin redirect (the CORS-safelisted ones plus `User-Agent`). Every other
 * header — `Authorization`, `Cookie`, API-key headers filled from `{{secrets.…}}`, `Idempotency-Key` —
 * is dropped, so a redirect never hands a tenant's credentials to another origin.
 */
export const crossOriginSafeHeaders: ReadonlySet<string> = new Set([
  'accept',
  'accept-language',
  'content-language',
  'content-type',
  'user-agent',
]);

/** Headers describing a body, dropped when a redirect turns the request into a body-less GET. */
const bodyHeaders = new Set(['content-type', 'content-encoding', 'content-language', 'content-location']);

function refuse(name: string, why: string): never {
  // The name comes from the tenant's config; show a bounded, escaped form. Values are never shown (secrets).
  const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
  throw new EgressError('egress_bad_header', `The tool’s header ${shown} is not allowed (${why}).`, { reason: why });
}

/**
 * Refuses header injection: names that are not tokens, CR/LF/NUL in names or values, a `Host`
 * (or `Content-Length`/`Expect`) override, and hop-by-hop headers (`Connection`, `Keep-Alive`,
 * `Proxy-*`, `TE`, `Trailer`, `Transfer-Encoding`, `Upgrade`).
 *
 * @example
 * checkRequestHeaders({ Authorization: 'Bearer x' }); // ok
 * checkRequestHeaders({ Host: 'metadata.internal' }); // throws egress_bad_header
 */
export function checkRequestHeaders(headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) {
    const problem = forbiddenValue.test(name) ? 'invalid header name' : headerNameProblem(name);
    if (problem) refuse(name, problem);
    if (typeof value !== 'string' || forbiddenValue.test(value)) refuse(name, 'CR, LF or NUL in the value');
  }
}

/**
 * The headers for the next hop of a redirect. A cross-origin hop keeps only
 * {@link crossOriginSafeHeaders}, and none of those either when its value carries a secret
 * (`secretForms`: the spellings of the request's secrets; a `User-Agent` can be templated too).
 *
 * @example
 * headersForRedirect({ Authorization: 'x', Accept: 'a' }, { crossOrigin: true, dropBody: false }); // { Accept: 'a' }
 */
export function headersForRedirect(
  headers: Readonly<Record<string, string>>,
  options: { crossOrigin: boolean; dropBody: boolean; secretForms?: readonly string[] },
): Record<string, string> {
  const next: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (options.crossOrigin && !crossOriginSafeHeaders.has(lower)) continue;
    if (options.crossOrigin && carriesSecret(value, options.secretForms ?? [])) continue;
    if (options.dropBody && bodyHeaders.has(lower)) continue;
    next[name] = value;
  }
  return next;
}
