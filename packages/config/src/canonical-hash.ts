import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * Canonical JSON (RFC 8785: sorted keys, no whitespace), so equal configs serialise equally.
 *
 * @example
 * canonicalJson({ b: 1, a: 2 }); // '{"a":2,"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return canonicalize(value) ?? 'null';
}

/**
 * sha256 (hex) of the canonical JSON of a value: the identity of a config for caching.
 *
 * @example
 * contentHash({ a: 1 }) === contentHash({ a: 1 }); // true
 */
export function contentHash(value: unknown): string {
  return sha256(canonicalJson(value));
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
