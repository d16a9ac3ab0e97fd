import type { Context } from 'hono';

/**
 * The page origin a browser request comes from. Browsers send `Origin` on cross-origin calls, but
 * not on same-origin GETs, and a page under `Referrer-Policy: no-referrer` (the dashboard) sends
 * `Origin: null`. When the browser itself says the call is same-origin (`Sec-Fetch-Site`, which
 * page scripts cannot set) the origin is the API's own, so a publishable key that allows the API's
 * origin works from the API's own pages (the dashboard's widget preview).
 *
 * @example
 * requestOrigin(c); // 'https://shop.example' (cross-origin), 'https://api.example' (same-origin GET)
 */
export function requestOrigin(c: Context): string | undefined {
  const origin = c.req.header('origin');
  if (origin && origin !== 'null') return origin;
  if (c.req.header('sec-fetch-site') !== 'same-origin') return origin;
  const url = new URL(c.req.url);
  const proto = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  if (proto === 'https' || proto === 'http') url.protocol = `${proto}:`;
  return url.origin;
}
