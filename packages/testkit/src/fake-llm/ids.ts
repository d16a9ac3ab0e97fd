import { randomBytes } from 'node:crypto';

/**
 * A random id in the style the real APIs use (`prefix` + alphanumerics).
 *
 * @example
 * wireId('call_'); // 'call_Xy3…'
 */
export function wireId(prefix: string, length = 24): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let out = prefix;
  for (const byte of randomBytes(length)) out += alphabet[byte % alphabet.length];
  return out;
}
