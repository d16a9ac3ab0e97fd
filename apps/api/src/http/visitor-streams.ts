import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * The event streams each visitor (an end user, or a publishable key's anonymous client by IP)
 * holds open, up to `max`, so one visitor cannot hold hundreds of streams of a run.
 */
export interface VisitorStreams {
  /** A release when `visitor` may open one more stream; undefined at the cap. */
  tryAcquire(visitor: string): Promise<(() => void) | undefined>;
  readonly max: number;
  close(): void;
}

/**
 * One process's count per visitor (the embedded mode, or while Redis is unreachable).
 *
 * @example
 * const streams = createMemoryVisitorStreams(5);
 * const release = await streams.tryAcquire('pk_1:ip:203.0.113.9');
 */
export function createMemoryVisitorStreams(max: number): VisitorStreams {
  const open = new Map<string, number>();
  return {
    async tryAcquire(visitor) {
      return acquireInMemory(open, visitor, max);
    },
    max,
    close() {},
  };
}

function acquireInMemory(open: Map<string, number>, visitor: string, max: number): (() => void) | undefined {
  const count = open.get(visitor) ?? 0;
  if (count >= max) return undefined;
  open.set(visitor, count + 1);
  return once(() => {
    const left = (open.get(visitor) ?? 1) - 1;
    if (left > 0) open.set(visitor, left);
    else open.delete(visitor);
  });
}

/**
 * Takes a lease in the visitor's set (members expire at their score, Redis time), if it holds
 * fewer than `max` live ones. Atomic, so API processes racing for the last slot cannot both win.
 */
const ACQUIRE = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ms + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/** Pushes the leases' expiry on (only those still there: a released one stays released). */
const RENEW = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], 'XX', ms + tonumber(ARGV[1]), ARGV[i + 1])
  redis.call('PEXPIRE', KEYS[i], ARGV[1])
end
return 1`;

type LeaseRedis = Redis & {
  visitorStreamAcquire(key: string, max: number, leaseMs: number, member: string): Promise<number>;
  visitorStreamRenew(...args: Array<string | number>): Promise<number>;
};

export interface RedisVisitorStreamsOptions {
  redis: Redis;
  prefix: string;
  max: number;
  /** A lease lives this long unless renewed: a dead process's streams free themselves (60 s). */
  leaseMs?: number;
}

/**
 * Counts each visitor's streams across API processes with expiring leases in Redis: one sorted
 * set per visitor, a member per open stream. The process renews all of its leases together every
 * third of `leaseMs` (one command, whatever the number of streams), so a stream's lease ends with
 * it, or at most `leaseMs` after its process died. While Redis cannot answer, the process counts
 * on its own (`max` per visitor per process) rather than refusing every visitor.
 *
 * @example
 * const streams = createRedisVisitorStreams({ redis, prefix: 'agentry', max: 5 });
 * const release = await streams.tryAcquire(`${tenantId}:user:${endUserId}`); // undefined at the cap
 */
export function createRedisVisitorStreams(options: RedisVisitorStreamsOptions): VisitorStreams {
  const { max, leaseMs = 60_000 } = options;
  const redis = options.redis as LeaseRedis;
  // Defined once per client (EVALSHA, loaded again by ioredis if Redis lost its scripts).
  if (typeof (options.redis as unknown as Record<string, unknown>).visitorStreamAcquire !== 'function') {
    options.redis.defineCommand('visitorStreamAcquire', { numberOfKeys: 1, lua: ACQUIRE });
    options.redis.defineCommand('visitorStreamRenew', { lua: RENEW });
  }
  const key = (visitor: string) => `${options.prefix}:visitor-streams:${visitor}`;
  /** Leases held by this process: member → key. */
  const leases = new Map<string, string>();
  const fallback = new Map<string, number>();
  let renewal: NodeJS.Timeout | undefined;

  const renew = () => {
    if (leases.size === 0) return;
    const entries = [...leases];
    redis
      .visitorStreamRenew(entries.length, ...entries.map(([, k]) => k), leaseMs, ...entries.map(([m]) => m))
      .catch(() => {});
  };
  const track = () => {
    if (leases.size > 0 && !renewal) {
      renewal = setInterval(renew, Math.max(1000, Math.floor(leaseMs / 3)));
      renewal.unref();
    } else if (leases.size === 0 && renewal) {
      clearInterval(renewal);
      renewal = undefined;
    }
  };

  return {
    async tryAcquire(visitor) {
      const member = randomUUID();
      const k = key(visitor);
      let granted: number;
      try {
        granted = await redis.visitorStreamAcquire(k, max, leaseMs, member);
      } catch {
        return acquireInMemory(fallback, visitor, max);
      }
      if (granted !== 1) return undefined;
      leases.set(member, k);
      track();
      return once(() => {
        leases.delete(member);
        track();
        redis.zrem(k, member).catch(() => {});
      });
    },
    max,
    close() {
      clearInterval(renewal);
      renewal = undefined;
    },
  };
}

function once(release: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    release();
  };
}
