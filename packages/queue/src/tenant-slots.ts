import { Redis } from 'ioredis';

/**
 * A per-tenant concurrency cap shared by every worker, so one tenant's burst cannot take all
 * workers. Leases expire, so a crashed worker's slots free themselves.
 *
 * @example
 * if (await slots.acquire(tenantId, runId)) try { await run() } finally { await slots.release(tenantId, runId) }
 */
export interface TenantSlots {
  acquire(tenantId: string, runId: string): Promise<boolean>;
  /** Extends a held lease (call with the run's heartbeat). */
  refresh(tenantId: string, runId: string): Promise<void>;
  release(tenantId: string, runId: string): Promise<void>;
  close(): Promise<void>;
}

export interface TenantSlotOptions {
  /** Runs of one tenant that may execute at once across all workers. */
  perTenant: number;
  /** A lease not refreshed for this long is released. */
  leaseMs?: number;
}

/** In-process slots for the embedded mode. */
export function createMemoryTenantSlots(options: TenantSlotOptions): TenantSlots {
  const held = new Map<string, Set<string>>();
  return {
    async acquire(tenantId, runId) {
      const set = held.get(tenantId) ?? new Set<string>();
      held.set(tenantId, set);
      if (set.has(runId)) return true;
      if (set.size >= options.perTenant) return false;
      set.add(runId);
      return true;
    },
    async refresh() {},
    async release(tenantId, runId) {
      held.get(tenantId)?.delete(runId);
    },
    async close() {},
  };
}

// Atomically: drop expired leases, then take one if the tenant is under its cap.
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
  return 1
end
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[4]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return 1
end
return 0`;

/** Slots in Redis: one sorted set of leases per tenant (member run id, score expiry time). */
export function createRedisTenantSlots(
  options: TenantSlotOptions & { redisUrl: string; prefix?: string },
): TenantSlots {
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 3 }) as Redis & {
    acquireTenantSlot(key: string, ...args: Array<string | number>): Promise<number>;
  };
  redis.on('error', () => {});
  // Sent by its SHA (EVALSHA; ioredis loads it on NOSCRIPT) instead of the script's text every run.
  redis.defineCommand('acquireTenantSlot', { numberOfKeys: 1, lua: ACQUIRE });
  const leaseMs = options.leaseMs ?? 120_000;
  const key = (tenantId: string) => `${options.prefix ?? 'agentry'}:tenant-slots:${tenantId}`;
  return {
    async acquire(tenantId, runId) {
      const now = Date.now();
      const ok = await redis.acquireTenantSlot(
        key(tenantId),
        now,
        now + leaseMs,
        runId,
        options.perTenant,
        leaseMs * 2,
      );
      return ok === 1;
    },
    async refresh(tenantId, runId) {
      await redis.zadd(key(tenantId), 'XX', Date.now() + leaseMs, runId);
    },
    async release(tenantId, runId) {
      await redis.zrem(key(tenantId), runId);
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
