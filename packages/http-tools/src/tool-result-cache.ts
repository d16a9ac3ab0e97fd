import { createHash } from 'node:crypto';
import type { CompiledTool, RenderedRequest } from '@agentry/config';

/**
 * Where a cached response lives: always one tenant's (never shared across tenants) and the digest
 * of the rendered request. The digest is a SHA-256, so secrets and end-user tokens the request
 * carries are part of the key only as a hash.
 */
export interface ToolCacheKey {
  tenantId: string;
  digest: string;
}

/** What is stored for a request: the tool output exactly as the model read it (secrets masked), and its HTTP status. */
export interface CachedToolResponse {
  status: number;
  output: unknown;
}

/**
 * Stored responses of tools with `cache: { ttl }`. Implementations bound what they hold (entry
 * size, entries per tenant or bytes in all) and may lose entries at any time; the executor treats
 * a thrown error like a miss, so an outage never fails a tool call.
 *
 * @example
 * const cache: ToolResultCache = createMemoryToolResultCache();
 * await cache.set({ tenantId: 't1', digest }, { status: 200, output: { id: 'A1' } }, 60);
 * await cache.get({ tenantId: 't1', digest }); // { status: 200, output: { id: 'A1' } }
 */
export interface ToolResultCache {
  get(key: ToolCacheKey): Promise<CachedToolResponse | undefined>;
  /** Stores for `ttlSeconds`; an entry above the implementation's size bound is silently not stored. */
  set(key: ToolCacheKey, value: CachedToolResponse, ttlSeconds: number): Promise<void>;
  close(): Promise<void>;
}

/** Bounds shared by both implementations. */
export interface ToolCacheBounds {
  /** Entries larger than this (serialized) are not stored (default 256 KiB). */
  maxEntryBytes?: number;
  /** Entries kept per tenant; storing one more drops the one that expires first (default 1000). */
  maxEntriesPerTenant?: number;
}

export const defaultToolCacheBounds = { maxEntryBytes: 256 * 1024, maxEntriesPerTenant: 1000 } as const;

/** The per-call idempotency key differs on every call, so it never takes part in the cache key. */
const ignoredHeaders = new Set(['idempotency-key']);

/**
 * The digest of a rendered request: method, final URL, headers (names lower-cased, sorted) and
 * body, plus the tool's response shaping (what is stored is the shaped output). Values such as
 * secrets and tokens go into the hash only.
 *
 * @example
 * requestDigest(tool, { method: 'GET', url: 'https://api.example.com/orders/1', headers: {} }); // 'a3f…' (64 hex)
 */
export function requestDigest(tool: Pick<CompiledTool, 'response'>, request: RenderedRequest): string {
  const headers = Object.entries(request.headers)
    .map(([name, value]) => [name.toLowerCase(), value] as const)
    .filter(([name]) => !ignoredHeaders.has(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const shaping = { maxBytes: tool.response.maxBytes, fields: tool.response.fields ?? null };
  const material = JSON.stringify(['v1', request.method, request.url, headers, request.body ?? null, shaping]);
  return createHash('sha256').update(material).digest('hex');
}

/**
 * How long a response may be stored, from the tool's TTL and the endpoint's `Cache-Control`:
 * `no-store` and `no-cache` (which asks for revalidation we do not do) store nothing, `max-age`
 * shortens the TTL. `private` is honoured by the key itself: it holds every header and value the
 * request sent (the end user's token too), so a private answer is only reused for the same
 * credentials.
 *
 * @example
 * storableSeconds(300, 'public, max-age=60'); // 60
 * storableSeconds(300, 'no-store'); // 0
 */
export function storableSeconds(ttlSeconds: number, cacheControl: string | null | undefined): number {
  let ttl = ttlSeconds;
  for (const directive of (cacheControl ?? '').split(',')) {
    const [rawName, rawValue] = directive.split('=', 2);
    const name = rawName?.trim().toLowerCase();
    if (name === 'no-store' || name === 'no-cache') return 0;
    if (name === 'max-age') {
      const seconds = Number.parseInt((rawValue ?? '').trim().replace(/^"|"$/g, ''), 10);
      if (Number.isFinite(seconds)) ttl = Math.min(ttl, Math.max(0, seconds));
    }
  }
  return ttl;
}

/** The stored form of a value; its byte length is what the size bound compares. */
export function serializeCached(value: CachedToolResponse): string {
  return JSON.stringify({ s: value.status, o: value.output });
}

/** Reads a stored value back; undefined for anything not written by {@link serializeCached}. */
export function parseCached(text: string): CachedToolResponse | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object' || !('s' in parsed) || typeof parsed.s !== 'number') {
      return undefined;
    }
    return { status: parsed.s, output: (parsed as { o?: unknown }).o };
  } catch {
    return undefined;
  }
}
