import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * The client's address: the socket peer, or with `trustedProxies` > 0 the `X-Forwarded-For` entry
 * the outermost trusted proxy appended (entries left of it are whatever the client sent).
 *
 * @example
 * clientIp(c, 1); // X-Forwarded-For: "1.2.3.4, 203.0.113.9" → "203.0.113.9"
 */
export function clientIp(c: Context, trustedProxies: number): string {
  if (trustedProxies > 0) {
    const hops = (c.req.header('x-forwarded-for') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const entry = hops[Math.max(0, hops.length - trustedProxies)];
    if (entry) return entry;
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown'; // not served by node (app.request in a test)
  }
}
