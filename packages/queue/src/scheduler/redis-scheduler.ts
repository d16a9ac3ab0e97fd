import { errors } from '@agentry/errors';
import { Redis } from 'ioredis';
import type { RunJobData } from '../types.ts';
import {
  DEFAULT_LEASE_MS,
  dispatchJobId,
  type RunScheduler,
  type SchedulerOptions,
  type SubmitOutcome,
} from './run-scheduler.ts';

// Every script works on one tenant's keys: KEYS[1] leases (zset: run id → lease expiry ms),
// KEYS[2] parked (zset: run id → arrival ms), KEYS[3] parked jobs (hash: run id → job data JSON),
// KEYS[4] rewake (set of runs submitted while holding a slot), KEYS[5] the set of tenants with
// parked runs (what `reconcile` walks), KEYS[6] the number of parked runs. ARGV[1] now, ARGV[2] lease expiry, ARGV[3] cap, ARGV[4]
// tenant id. They return { outcome, id1, json1, id2, json2, … }: the runs to dispatch. The prelude
// only defines; every Redis command a script runs counts (INFO commandstats), so each runs what its
// case needs.
const PRELUDE = `
local now, expiry, cap, tenant = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), ARGV[4]
local out = { 'none' }
local function park(id, json)
  if redis.call('ZADD', KEYS[2], 'NX', now, id) == 1 then
    redis.call('HSET', KEYS[3], id, json)
    redis.call('INCR', KEYS[6])
  end
  redis.call('SADD', KEYS[5], tenant)
end
local function fill()
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  while redis.call('ZCARD', KEYS[1]) < cap do
    local head = redis.call('ZPOPMIN', KEYS[2])
    if #head == 0 then break end
    local id = head[1]
    redis.call('DECR', KEYS[6])
    redis.call('ZADD', KEYS[1], expiry, id)
    out[#out + 1] = id
    out[#out + 1] = redis.call('HGET', KEYS[3], id) or ''
    redis.call('HDEL', KEYS[3], id)
  end
  if redis.call('ZCARD', KEYS[2]) == 0 then redis.call('SREM', KEYS[5], tenant) end
end
`;

/**
 * ARGV[5] run id, ARGV[6] job JSON, ARGV[7] 'submit' | 'acquire'. Two short ways cover nearly every
 * run, so its Redis commands do not grow with the bookkeeping (issue 23): a run holding a live lease
 * is answered from that lease alone, and with nobody parked and a slot free the run takes the slot
 * at once (what parking it and filling would do, without the wait list's writes).
 */
const OFFER = `${PRELUDE}
local id = ARGV[5]
local lease = redis.call('ZSCORE', KEYS[1], id)
if lease and tonumber(lease) > now then
  if ARGV[7] == 'acquire' then
    redis.call('ZADD', KEYS[1], expiry, id)
    return { 'mine' }
  end
  redis.call('SADD', KEYS[4], id)
  return { 'held' }
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[2]) == 0 and redis.call('ZCARD', KEYS[1]) < cap then
  redis.call('ZADD', KEYS[1], expiry, id)
  return { 'none', id, ARGV[6] }
end
park(id, ARGV[6])
fill()
return out`;

/**
 * ARGV[5] run id, ARGV[6] job JSON (to park it again when it was submitted meanwhile). With nobody
 * parked there is nothing to fill: the tenant is not in the set of tenants with parked runs (every
 * script that empties the wait list takes it out), and expired leases are cleared by the next offer.
 */
const RELEASE = `${PRELUDE}
redis.call('ZREM', KEYS[1], ARGV[5])
if redis.call('SREM', KEYS[4], ARGV[5]) == 1 then park(ARGV[5], ARGV[6]) end
if redis.call('EXISTS', KEYS[2]) == 0 then return out end
fill()
return out`;

const RECONCILE = `${PRELUDE}
fill()
return out`;

/** ARGV[5] run id. */
const FORGET = `${PRELUDE}
if redis.call('ZREM', KEYS[2], ARGV[5]) == 1 then redis.call('DECR', KEYS[6]) end
redis.call('HDEL', KEYS[3], ARGV[5])
redis.call('SREM', KEYS[4], ARGV[5])
if redis.call('ZCARD', KEYS[2]) == 0 then redis.call('SREM', KEYS[5], tenant) end
return out`;

type Script = (keys: string[], args: Array<string | number>) => Promise<string[]>;

export interface RedisSchedulerOptions extends SchedulerOptions {
  redisUrl: string;
  /** Key prefix (the queue's), so several installations share a Redis. */
  prefix?: string;
  /**
   * The API's producer fails fast while Redis is down (no offline queue: a request answers 503
   * `queue_unavailable` at once); a worker's scheduler waits for the connection to come back.
   */
  failFast?: boolean;
}

/**
 * The scheduler in Redis, shared by the API (submits) and every worker (acquire, release,
 * reconcile): each operation is one Lua script over the tenant's keys, so concurrent workers never
 * hand the same slot out twice.
 *
 * @example
 * const scheduler = createRedisScheduler({ redisUrl, prefix, perTenant: 4, dispatch: (id, d) => queue.enqueue(id, d) });
 */
export function createRedisScheduler(options: RedisSchedulerOptions): RunScheduler {
  const redis = new Redis(options.redisUrl, {
    maxRetriesPerRequest: options.failFast ? 1 : 3,
    ...(options.failFast ? { enableOfflineQueue: false } : {}),
  });
  redis.on('error', () => {}); // surfaced through the failing commands
  const scripts = { offer: OFFER, release: RELEASE, reconcile: RECONCILE, forget: FORGET };
  for (const [name, lua] of Object.entries(scripts)) redis.defineCommand(`sched_${name}`, { numberOfKeys: 6, lua });
  const run = (name: keyof typeof scripts): Script => {
    const command = (redis as unknown as Record<string, (...args: Array<string | number>) => Promise<string[]>>)[
      `sched_${name}`
    ]!.bind(redis);
    return (keys, args) => command(...keys, ...args);
  };
  const prefix = `${options.prefix ?? 'agentry'}:sched`;
  const tenantsKey = `${prefix}:tenants`;
  const backlogKey = `${prefix}:parked-count`;
  const keys = (tenantId: string) => [
    `${prefix}:${tenantId}:leases`,
    `${prefix}:${tenantId}:parked`,
    `${prefix}:${tenantId}:jobs`,
    `${prefix}:${tenantId}:rewake`,
    tenantsKey,
    backlogKey,
  ];
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const args = (tenantId: string) => {
    const now = Date.now();
    return [now, now + leaseMs, options.perTenant, tenantId];
  };
  /** Calls a script; a Redis fault is the queue being unavailable (retryable). */
  const call = async (name: keyof typeof scripts, tenantId: string, extra: string[] = []) => {
    try {
      return await run(name)(keys(tenantId), [...args(tenantId), ...extra]);
    } catch {
      throw errors.unavailable('queue_unavailable', 'The job queue is unavailable; try again shortly', 1000);
    }
  };
  /**
   * Dispatches the runs a script handed slots to; returns their ids. A failed dispatch of `own`
   * (the caller's run) gives its slot back and throws, so the caller can answer 503 and undo what it
   * wrote; the others' are reported (their leases expire, the sweeper submits them again).
   */
  const dispatchFrom = async (reply: string[], tenantId: string, own?: string): Promise<string[]> => {
    const ids: string[] = [];
    for (let i = 1; i + 1 < reply.length; i += 2) {
      const id = reply[i]!;
      const data = parseJob(reply[i + 1]!, id, tenantId);
      ids.push(id);
      try {
        await options.dispatch(dispatchJobId(id), data);
      } catch (error) {
        if (id !== own) {
          options.onError?.('dispatch failed', error, data);
          continue;
        }
        await redis.zrem(keys(tenantId)[0]!, id).catch(() => {});
        throw error;
      }
    }
    return ids;
  };

  return {
    async submit(job): Promise<SubmitOutcome> {
      const reply = await call('offer', job.tenantId, [job.runId, JSON.stringify(job), 'submit']);
      if (reply[0] === 'held') return 'held';
      const dispatched = await dispatchFrom(reply, job.tenantId, job.runId);
      return dispatched.includes(job.runId) ? 'dispatched' : 'parked';
    },
    async acquire(job) {
      const reply = await call('offer', job.tenantId, [job.runId, JSON.stringify(job), 'acquire']);
      if (reply[0] === 'mine') return true;
      // Its own slot came with the reply: it runs now, in this job; the others are dispatched.
      const mine = reply.findIndex((value, i) => i % 2 === 1 && value === job.runId);
      const others = mine > 0 ? [...reply.slice(0, mine), ...reply.slice(mine + 2)] : reply;
      await dispatchFrom(others, job.tenantId);
      return mine > 0;
    },
    async refresh(job) {
      await redis.zadd(keys(job.tenantId)[0]!, 'XX', Date.now() + leaseMs, job.runId);
    },
    async release(job) {
      const reply = await call('release', job.tenantId, [job.runId, JSON.stringify(job)]);
      await dispatchFrom(reply, job.tenantId);
    },
    async forget(job) {
      await call('forget', job.tenantId, [job.runId]);
    },
    async reconcile() {
      let dispatched = 0;
      // SSCAN: the set holds tenants with parked runs, never the runs themselves.
      let cursor = '0';
      do {
        const [next, tenants] = await redis.sscan(tenantsKey, cursor, 'COUNT', 200);
        cursor = next;
        for (const tenantId of tenants) {
          dispatched += (await dispatchFrom(await call('reconcile', tenantId), tenantId)).length;
        }
      } while (cursor !== '0');
      return dispatched;
    },
    async backlog() {
      return Math.max(0, Number((await redis.get(backlogKey)) ?? 0));
    },
    async tracked(tenantId, runIds) {
      if (runIds.length === 0) return new Set();
      const [leases, parked] = keys(tenantId);
      const pipeline = redis.pipeline();
      for (const id of runIds) pipeline.zscore(leases!, id).zscore(parked!, id);
      const replies = (await pipeline.exec()) ?? [];
      const now = Date.now();
      const held = new Set<string>();
      runIds.forEach((id, i) => {
        const lease = replies[i * 2]?.[1] as string | null;
        const park = replies[i * 2 + 1]?.[1] as string | null;
        if (park !== null || (lease !== null && Number(lease) > now)) held.add(id);
      });
      return held;
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** A parked run's job data; a run whose data went missing still runs (its job names id and tenant). */
function parseJob(json: string, runId: string, tenantId: string): RunJobData {
  try {
    const data = JSON.parse(json) as RunJobData;
    if (data.runId === runId) return data;
  } catch {}
  return { runId, tenantId };
}
