import { createHash, randomBytes } from 'node:crypto';

/** Password reset links work for 30 minutes. */
export const PASSWORD_RESET_TTL_MS = 30 * 60 * 1000;
/** Email confirmation links work for 3 days. */
export const EMAIL_CONFIRMATION_TTL_MS = 3 * 24 * 60 * 60 * 1000;

/**
 * A new mailed token (`prefix_` + 256 random bits) and the SHA-256 that is all the database keeps.
 *
 * @example
 * const { token, hash } = newAccountToken('pwr');
 */
export function newAccountToken(prefix: 'pwr' | 'vfy'): { token: string; hash: string } {
  const token = `${prefix}_${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashAccountToken(token) };
}

export function hashAccountToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
