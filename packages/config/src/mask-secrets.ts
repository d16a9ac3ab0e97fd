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
