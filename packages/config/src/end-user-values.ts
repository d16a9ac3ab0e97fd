import type { EndUserConfig } from '@agentry/contract';
import type { EndUserValues } from './compiled-agent.ts';

/** The longest claim value kept (characters of its text); a longer one is left out like an absent claim. */
export const MAX_END_USER_CLAIM_CHARS = 1024;
/** The longest token forwarded as `{{user.token}}`; a longer one is not kept. */
export const MAX_END_USER_TOKEN_CHARS = 8192;

/**
 * What a verified token gives an agent's tools: only the claims `end_user.claims` declares, only
 * strings, finite numbers and booleans, each at most {@link MAX_END_USER_CLAIM_CHARS} characters;
 * the token only with `forward_token`. Undefined when the agent declares no `end_user`.
 *
 * @example
 * endUserValues({ claims: ['email'] }, { sub: 'u1', email: 'a@b.c', exp }, token); // { claims: { email: 'a@b.c' }, expiresAt: exp }
 */
export function endUserValues(
  config: EndUserConfig | undefined,
  payload: Record<string, unknown> & { exp: number },
  token: string,
): EndUserValues | undefined {
  if (!config) return undefined;
  const claims: EndUserValues['claims'] = {};
  for (const name of config.claims) {
    if (!Object.hasOwn(payload, name)) continue;
    const value = payload[name];
    if (typeof value === 'string' && value.length <= MAX_END_USER_CLAIM_CHARS) claims[name] = value;
    else if (typeof value === 'number' && Number.isFinite(value)) claims[name] = value;
    else if (typeof value === 'boolean') claims[name] = value;
  }
  const forward = config.forward_token === true && token.length <= MAX_END_USER_TOKEN_CHARS;
  return { claims, ...(forward ? { token } : {}), expiresAt: payload.exp };
}
