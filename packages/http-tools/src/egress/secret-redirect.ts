import { EgressError } from './egress-error.ts';

/** Which part of a redirect would have carried a secret to another origin (shown as `rule`). */
export type SecretRedirectRule = 'secret_in_body' | 'secret_in_url' | 'secret_in_location';

/**
 * Every spelling of each secret a rendered request can contain: as is (headers, decoded URLs),
 * percent-encoded (path and query templates), form-encoded (`query_params`) and JSON-escaped (bodies).
 *
 * @example
 * secretForms(['a b']); // ['a b', 'a%20b', 'a+b']
 */
export function secretForms(values: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const value of values) {
    if (value.length === 0) continue;
    forms.add(value);
    forms.add(encodeURIComponent(value));
    forms.add(new URLSearchParams([['', value]]).toString().slice(1));
    forms.add(JSON.stringify(value).slice(1, -1));
  }
  return [...forms];
}

/** Whether `text` contains any spelling of a secret. Short secrets match often: refusing is the safe side. */
export function carriesSecret(text: string | undefined, secrets: readonly string[]): boolean {
  if (!text) return false;
  return secrets.some((form) => text.includes(form));
}

/** Whether a URL as sent (fragment excluded: it never leaves the client) carries a secret, in any encoding. */
export function urlCarriesSecret(url: URL, secrets: readonly string[]): boolean {
  const sent = url.href.slice(0, url.hash ? url.href.length - url.hash.length : undefined);
  let decoded = sent;
  try {
    decoded = decodeURIComponent(sent.replaceAll('+', ' '));
  } catch {
    // a malformed escape: the encoded forms are still checked
  }
  return carriesSecret(sent, secrets) || carriesSecret(decoded, secrets);
}

/** One redirect hop to check, as the egress loop sees it. */
export interface RedirectHop {
  status: number;
  /** The URL that answered with the redirect, and where it points. */
  from: URL;
  to: URL;
  /** The body the next hop would re-send (undefined when the redirect turns the request into a GET). */
  resentBody: string | undefined;
  /** 1 for the first redirect. */
  hop: number;
}

/**
 * Refuses a cross-origin redirect that would hand a secret to the other origin: one whose
 * `Location` carries a secret, one that re-sends a body carrying a secret (307/308, or 301/302 of
 * a method other than POST), and a 307/308 of a request whose URL carries a secret (the redirect
 * asks to repeat that request elsewhere). Secret-bearing headers are dropped separately. Same-origin
 * redirects are never refused here.
 *
 * @example
 * assertNoSecretCrossesOrigin({ status: 307, from, to, resentBody: body, hop: 1 }, secretForms([token]));
 */
export function assertNoSecretCrossesOrigin(redirect: RedirectHop, secrets: readonly string[]): void {
  if (redirect.from.origin === redirect.to.origin || secrets.length === 0) return;
  if (urlCarriesSecret(redirect.to, secrets)) refuse(redirect, 'secret_in_location', 'its new URL');
  if (carriesSecret(redirect.resentBody, secrets)) refuse(redirect, 'secret_in_body', 'the request body');
  const repeats = redirect.status === 307 || redirect.status === 308;
  if (repeats && urlCarriesSecret(redirect.from, secrets)) refuse(redirect, 'secret_in_url', 'the request URL');
}

function refuse(redirect: RedirectHop, rule: SecretRedirectRule, carrier: string): never {
  // Neither URL is shown: either may hold the secret.
  throw new EgressError(
    'egress_redirect_refused',
    `Redirect ${redirect.hop} (HTTP ${redirect.status}) goes to another origin and would carry a tenant secret in ${carrier}; it was not followed. Point the tool at the final URL instead.`,
    { rule, hop: redirect.hop, status: redirect.status },
  );
}
