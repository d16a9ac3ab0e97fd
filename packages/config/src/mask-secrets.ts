/**
 * Replaces every occurrence of a secret value (raw and percent-encoded) with `***`, for traces,
 * logs and the CLI. Very short secrets are masked too: leaking one is worse than over-masking.
 *
 * @example
 * maskSecrets('https://x.com/?key=s3cr3t', { API_KEY: 's3cr3t' }); // 'https://x.com/?key=***'
 */
export function maskSecrets(text: string, secrets: Record<string, string>): string {
  let out = text;
  // Longest first, so a secret that contains another is masked whole.
  const values = Object.values(secrets)
    .filter((v) => v.length > 0)
    .sort((a, b) => b.length - a.length);
  for (const value of values) {
    for (const form of new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)])) {
      out = out.split(form).join('***');
    }
  }
  return out;
}

/** Claim values shorter than this are not masked: `true`, `1` or `en` would mask ordinary text. */
export const MIN_MASKED_CLAIM_CHARS = 4;

/**
 * Everything a tool call must never show: the tenant's secrets, the end user's token and its
 * claim values (strings and numbers of at least {@link MIN_MASKED_CLAIM_CHARS} characters), for
 * `maskSecrets` on URLs, error messages and outputs.
 *
 * @example
 * maskSecrets(text, maskedValues({ secrets, user: { claims: { email: 'a@b.c' }, expiresAt } }));
 */
export function maskedValues(ctx: {
  secrets: Record<string, string>;
  user?: { claims: Record<string, unknown>; token?: string } | undefined;
}): Record<string, string> {
  if (!ctx.user) return ctx.secrets;
  const out: Record<string, string> = { ...ctx.secrets };
  for (const [name, value] of Object.entries(ctx.user.claims)) {
    const text = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
    if (text.length >= MIN_MASKED_CLAIM_CHARS) out[`user.${name}`] = text;
  }
  if (ctx.user.token) out['user.token'] = ctx.user.token;
  return out;
}
