import { LRUCache } from 'lru-cache';
import {
  type CachedToolResponse,
  defaultToolCacheBounds,
  parseCached,
  serializeCached,
  type ToolCacheBounds,
  type ToolCacheKey,
  type ToolResultCache,
} from './tool-result-cache.ts';

export interface MemoryToolResultCacheOptions extends ToolCacheBounds {
  /** Bytes held in all (serialized entries; default 32 MiB): the least recently used go first. */
  maxBytes?: number;
  /** Milliseconds now (default `Date.now`): a test seam for expiry. */
  now?: () => number;
}

interface Entry {
  text: string;
  expiresAt: number;
}

/**
 * The tool result cache of one process (the embedded mode): an LRU bounded in bytes, entries per
 * tenant bounded too (so one tenant cannot push out every other's), each entry bounded in size.
 *
 * @example
 * const cache = createMemoryToolResultCache({ maxBytes: 8 * 1024 * 1024 });
 * createHttpToolExecutor({ agent, context, cache: { store: cache, tenantId } });
 */
export function createMemoryToolResultCache(options: MemoryToolResultCacheOptions = {}): ToolResultCache {
  const maxEntryBytes = options.maxEntryBytes ?? defaultToolCacheBounds.maxEntryBytes;
  const perTenant = options.maxEntriesPerTenant ?? defaultToolCacheBounds.maxEntriesPerTenant;
  const now = options.now ?? Date.now;
  /** Each tenant's keys, oldest write first. */
  const byTenant = new Map<string, Set<string>>();
  const forget = (id: string) => {
    const tenantId = id.slice(0, id.indexOf('\n'));
    const keys = byTenant.get(tenantId);
    keys?.delete(id);
    if (keys?.size === 0) byTenant.delete(tenantId);
  };
  const entries = new LRUCache<string, Entry>({
    maxSize: options.maxBytes ?? 32 * 1024 * 1024,
    sizeCalculation: (entry, id) => Buffer.byteLength(entry.text) + id.length,
    // An overwrite keeps the key; anything else (eviction, delete) removes it from its tenant's list.
    dispose: (_entry, id, reason) => {
      if (reason !== 'set') forget(id);
    },
  });
  // A newline cannot occur in a tenant id, so the id splits back into tenant and digest.
  const idOf = (key: ToolCacheKey) => `${key.tenantId}\n${key.digest}`;

  return {
    async get(key) {
      const id = idOf(key);
      const entry = entries.get(id);
      if (!entry) return undefined;
      if (entry.expiresAt <= now()) {
        entries.delete(id);
        return undefined;
      }
      return parseCached(entry.text);
    },
    async set(key: ToolCacheKey, value: CachedToolResponse, ttlSeconds: number) {
      const text = serializeCached(value);
      if (ttlSeconds <= 0 || Buffer.byteLength(text) > maxEntryBytes) return;
      const id = idOf(key);
      entries.set(id, { text, expiresAt: now() + ttlSeconds * 1000 });
      if (!entries.has(id)) return; // larger than the whole cache
      let keys = byTenant.get(key.tenantId);
      if (!keys) {
        keys = new Set();
        byTenant.set(key.tenantId, keys);
      }
      keys.delete(id);
      keys.add(id);
      while (keys.size > perTenant) {
        const oldest = keys.values().next().value as string;
        entries.delete(oldest); // its dispose removes it from `keys`
        keys.delete(oldest);
      }
    },
    async close() {
      entries.clear();
      byTenant.clear();
    },
  };
}
