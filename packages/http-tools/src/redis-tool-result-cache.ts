import { Redis } from 'ioredis';
import {
  type CachedToolResponse,
  defaultToolCacheBounds,
  parseCached,
  serializeCached,
  type ToolCacheBounds,
  type ToolCacheKey,
  type ToolResultCache,
} from './tool-result-cache.ts';

export interface RedisToolResultCacheOptions extends ToolCacheBounds {
  redisUrl: string;
  /** Key prefix (the deployment's `QUEUE_PREFIX`): keys are `<prefix>:tool-cache:{<tenant>}:…`. */
  prefix: string;
  /** A command slower than this counts as a miss (default 250 ms): a stalled Redis never holds a tool call up for long. */
  commandTimeoutMs?: number;
}

/**
 * KEYS[1] the entry, KEYS[2] the tenant's index (a sorted set: digest → expiry in ms).
 * ARGV: value, ttl seconds, digest, max entries per tenant, the entry key prefix.
 * Stores the entry, drops the index's expired members, and while the tenant holds more than
 * its bound drops the entries that expire first. Time is Redis's own, the same for every worker.
 */
const SET_BOUNDED = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('SET', KEYS[1], ARGV[1], 'EX', ttl)
redis.call('ZADD', KEYS[2], now + ttl * 1000, ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if excess > 0 then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, excess - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, excess - 1)
  for _, digest in ipairs(oldest) do redis.call('DEL', ARGV[5] .. digest) end
end
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
if last[2] then redis.call('PEXPIREAT', KEYS[2], tonumber(last[2])) end
return 1`;

type CacheRedis = Redis & {
  toolCacheSet(entry: string, index: string, ...args: Array<string | number>): Promise<number>;
};

/**
 * The tool result cache shared by every worker: one string key per entry (with Redis's own TTL)
 * and, per tenant, a sorted set of its entries trimmed on every write, so a tenant holds at most
 * `maxEntriesPerTenant` entries of at most `maxEntryBytes` each. The shared Redis has no
 * `maxmemory`: these bounds are the cache's own. Commands fail fast while Redis is away (no
 * offline queue, a command time-out); the executor then calls the endpoint.
 *
 * @example
 * const cache = createRedisToolResultCache({ redisUrl: 'redis://127.0.0.1:6379', prefix: 'agentry' });
 * createHttpToolExecutor({ agent, context, cache: { store: cache, tenantId } });
 */
export function createRedisToolResultCache(options: RedisToolResultCacheOptions): ToolResultCache {
  const maxEntryBytes = options.maxEntryBytes ?? defaultToolCacheBounds.maxEntryBytes;
  const perTenant = options.maxEntriesPerTenant ?? defaultToolCacheBounds.maxEntriesPerTenant;
  const timeoutMs = options.commandTimeoutMs ?? 250;
  const redis = new Redis(options.redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: timeoutMs,
  }) as CacheRedis;
  redis.on('error', () => {}); // surfaced through failing commands instead
  redis.defineCommand('toolCacheSet', { numberOfKeys: 2, lua: SET_BOUNDED });
  const ready = firstConnection(redis, timeoutMs);
  // The hash tag keeps a tenant's entries and index in one slot (Redis Cluster).
  const base = (tenantId: string) => `${options.prefix}:tool-cache:{${tenantId}}:`;

  return {
    async get(key) {
      await ready();
      const text = await redis.get(`${base(key.tenantId)}e:${key.digest}`);
      return text === null ? undefined : parseCached(text);
    },
    async set(key: ToolCacheKey, value: CachedToolResponse, ttlSeconds: number) {
      const text = serializeCached(value);
      if (ttlSeconds <= 0 || Buffer.byteLength(text) > maxEntryBytes) return;
      const at = base(key.tenantId);
      await ready();
      await redis.toolCacheSet(
        `${at}e:${key.digest}`,
        `${at}index`,
        text,
        ttlSeconds,
        key.digest,
        perTenant,
        `${at}e:`,
      );
    },
    async close() {
      redis.disconnect();
    },
  };
}

/**
 * Waits once for the first connection (at most `ms`): without an offline queue a command sent
 * while connecting fails at once, and the first calls after a start would all miss. After that
 * nothing waits: while Redis is away commands fail fast and nothing piles up in a queue.
 */
function firstConnection(redis: Redis, ms: number): () => Promise<void> {
  let settled = false;
  const ready = new Promise<void>((resolve) => redis.once('ready', resolve));
  return async () => {
    if (settled || redis.status === 'ready') return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    await Promise.race([ready, timeout]).finally(() => clearTimeout(timer));
    settled = true;
  };
}
