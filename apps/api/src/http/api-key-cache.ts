import { type ApiKeyRecord, type Database, findActiveApiKey, listenForAuthChanges, type Tenant } from '@agentry/db';

/** What a key lookup finds: the active key and its active tenant. */
export interface FoundApiKey {
  key: ApiKeyRecord;
  tenant: Tenant;
}

export interface ApiKeyCacheOptions {
  /** Asks the database (`findActiveApiKey`). */
  load(keyHash: string): Promise<FoundApiKey | undefined>;
  /** A safety net only: an entry is looked up again this long after it was, changes or not. */
  ttlMs?: number;
  /** Entries kept at most; past it the oldest goes. */
  maxEntries?: number;
  now?: () => number;
}

/**
 * Per-process memory of successful key lookups, kept exact by change notifications: a tenant's
 * entries go when any of its keys or the tenant row changes (`invalidateTenant`), everything goes
 * when notifications may have been missed (`suspend` … `resume`), and nothing is cached while they
 * may be. Failed lookups are never cached (a new key works at once).
 */
export interface ApiKeyCache {
  /** The lookup, from memory when it is there (and caching is on), else from `load`. */
  find(keyHash: string): Promise<FoundApiKey | undefined>;
  invalidateTenant(tenantId: string): void;
  clear(): void;
  /** Forget everything and stop caching: changes may go unheard (the listener dropped). */
  suspend(): void;
  /** Forget everything (what was missed is unknown) and cache again. */
  resume(): void;
  /** Lookups answered from memory (`hits`) and asked of the database (`loads`) so far. */
  stats(): { size: number; hits: number; loads: number; caching: boolean };
}

interface Entry {
  found: FoundApiKey;
  expiresAt: number;
}

/**
 * Creates the cache; {@link startApiKeyCache} also keeps it in step with the database.
 *
 * @example
 * const cache = createApiKeyCache({ load: (hash) => findActiveApiKey(db, hash), ttlMs: 60_000 });
 * const found = await cache.find(hashKey(key));
 */
export function createApiKeyCache(options: ApiKeyCacheOptions): ApiKeyCache {
  const { load, ttlMs = 60_000, maxEntries = 10_000, now = Date.now } = options;
  const entries = new Map<string, Entry>();
  // Concurrent misses for one hash share a lookup, but only one started since the last invalidation.
  const inflight = new Map<string, { generation: number; promise: Promise<FoundApiKey | undefined> }>();
  // Bumped by every invalidation: a lookup that started before one may have read what it changed,
  // so its answer is returned to its caller but not kept.
  let generation = 0;
  let caching = true;
  let hits = 0;
  let loads = 0;

  const keep = (keyHash: string, found: FoundApiKey, expiresAt: number) => {
    entries.delete(keyHash);
    if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
    entries.set(keyHash, { found, expiresAt });
  };

  const lookup = (keyHash: string): Promise<FoundApiKey | undefined> => {
    const started = generation;
    const expiresAt = now() + ttlMs;
    loads++;
    const promise = load(keyHash)
      .then((found) => {
        if (found && caching && started === generation) keep(keyHash, found, expiresAt);
        return found;
      })
      .finally(() => {
        if (inflight.get(keyHash)?.promise === promise) inflight.delete(keyHash);
      });
    inflight.set(keyHash, { generation: started, promise });
    return promise;
  };

  const forgetAll = () => {
    generation++;
    entries.clear();
    inflight.clear();
  };

  return {
    find(keyHash) {
      if (!caching) {
        loads++;
        return load(keyHash);
      }
      const entry = entries.get(keyHash);
      if (entry && entry.expiresAt > now()) {
        hits++;
        return Promise.resolve(entry.found);
      }
      if (entry) entries.delete(keyHash);
      const pending = inflight.get(keyHash);
      if (pending && pending.generation === generation) return pending.promise;
      return lookup(keyHash);
    },
    invalidateTenant(tenantId) {
      generation++;
      // A scan: invalidations are rare (key and tenant writes) and the map is bounded.
      for (const [keyHash, entry] of entries) {
        if (entry.found.tenant.id === tenantId) entries.delete(keyHash);
      }
    },
    clear: forgetAll,
    suspend() {
      caching = false;
      forgetAll();
    },
    resume() {
      forgetAll();
      caching = true;
    },
    stats: () => ({ size: entries.size, hits, loads, caching }),
  };
}

/**
 * A key cache over `database` that listens for auth changes (`listenForAuthChanges`): a revoked
 * key, a suspended tenant or changed scopes stop working in every process once the change commits.
 * Resolves once listening; `stop` ends the listening.
 *
 * @example
 * const { cache, stop } = await startApiKeyCache(database, { ttlMs: config.apiKeyCacheTtlMs });
 * await stop();
 */
export async function startApiKeyCache(
  database: Database,
  options: Omit<ApiKeyCacheOptions, 'load'> = {},
): Promise<{ cache: ApiKeyCache; stop: () => Promise<void> }> {
  const cache = createApiKeyCache({ ...options, load: (keyHash) => findActiveApiKey(database.db, keyHash) });
  const stop = await listenForAuthChanges(database, {
    changed: (tenantId) => cache.invalidateTenant(tenantId),
    reset: () => cache.resume(),
    lost: () => cache.suspend(),
  });
  return { cache, stop };
}
