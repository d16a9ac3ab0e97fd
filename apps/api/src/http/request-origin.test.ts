import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { requestOrigin } from './request-origin.ts';

const app = new Hono().get('/', (c) => c.json({ origin: requestOrigin(c) ?? null }));
const originOf = async (headers: Record<string, string>) =>
  (await (await app.request('http://api.example:8080/', { headers })).json()).origin;

describe('request origin', () => {
  it('is the Origin header when the browser sent a real one', async () => {
    expect(await originOf({ origin: 'https://shop.example', 'sec-fetch-site': 'cross-site' })).toBe(
      'https://shop.example',
    );
  });

  it('is the API’s own origin for same-origin browser calls without one (or with "null")', async () => {
    expect(await originOf({ 'sec-fetch-site': 'same-origin' })).toBe('http://api.example:8080');
    expect(await originOf({ origin: 'null', 'sec-fetch-site': 'same-origin', 'x-forwarded-proto': 'https' })).toBe(
      'https://api.example:8080',
    );
  });

  it('stays missing or "null" for anything else (opaque pages, other sites, non-browsers)', async () => {
    expect(await originOf({ origin: 'null', 'sec-fetch-site': 'cross-site' })).toBe('null');
    expect(await originOf({})).toBeNull();
    expect(await originOf({ 'sec-fetch-site': 'same-site' })).toBeNull();
  });
});
