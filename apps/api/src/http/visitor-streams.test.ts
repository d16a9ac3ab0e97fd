import { randomBytes } from 'node:crypto';
import { availableServices, deleteRedisKeys, testServices } from '@agentry/testkit';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryVisitorStreams, createRedisVisitorStreams, type VisitorStreams } from './visitor-streams.ts';

const redisReady = availableServices().redis;
if (!redisReady) console.warn('[visitor-streams] NOTICE: Redis unavailable: the shared (Redis) variant is SKIPPED.');

const prefix = `test-${randomBytes(6).toString('hex')}`;
const clients: Redis[] = [];
afterAll(async () => {
  for (const client of clients) client.disconnect();
  if (redisReady) await deleteRedisKeys(prefix).catch(() => {});
});

/** An API process's view of the cap, and a way to wait until its releases so far have reached the store. */
type Process = VisitorStreams & { settled(): Promise<unknown> };

/** Two API processes' views of the same cap (Redis: two clients; memory: one process). */
function processes(kind: 'memory' | 'redis', max: number, leaseMs?: number): Process[] {
  if (kind === 'memory') {
    const one = Object.assign(createMemoryVisitorStreams(max), { settled: async () => {} });
    return [one, one];
  }
  const own = `${prefix}:${randomBytes(4).toString('hex')}`;
  return [0, 1].map(() => {
    const redis = new Redis(testServices.redisUrl);
    clients.push(redis);
    const streams = createRedisVisitorStreams({ redis, prefix: own, max, ...(leaseMs ? { leaseMs } : {}) });
    // A release is sent without waiting; a reply to a later command on the same connection means it was applied.
    return Object.assign(streams, { settled: () => redis.ping() });
  });
}

/** A small seeded generator, so a failing sequence can be replayed from the printed seed. */
function random(seed: number) {
  let state = seed >>> 0 || 1;
  return (n: number) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
}

const kinds = redisReady ? (['memory', 'redis'] as const) : (['memory'] as const);

describe.each(kinds)('event streams per visitor (%s)', (kind) => {
  it('two visitors: each up to the cap, across processes; one closes, the next opens', async () => {
    const [a, b] = processes(kind, 2);
    const first = [await a!.tryAcquire('v1'), await b!.tryAcquire('v1')];
    expect(first.every(Boolean)).toBe(true);
    expect(await a!.tryAcquire('v1')).toBeUndefined();
    expect(await b!.tryAcquire('v1')).toBeUndefined();
    // Another visitor is not held back by the first.
    const other = await a!.tryAcquire('v2');
    expect(other).toBeDefined();
    first[0]!();
    first[0]!(); // a second release frees nothing more
    const next = await b!.tryAcquire('v1');
    expect(next).toBeDefined();
    expect(await a!.tryAcquire('v1')).toBeUndefined();
    for (const release of [first[1], other, next]) release?.();
  });

  it('matches a plain count over generated open/close sequences of several visitors', async () => {
    const seed = Date.now();
    const next = random(seed);
    const max = 1 + next(4);
    const procs = processes(kind, max);
    const held = new Map<string, Array<{ release: () => void; by: Process }>>();
    for (let step = 0; step < 120; step++) {
      const visitor = `v${next(3)}`;
      const mine = held.get(visitor) ?? [];
      held.set(visitor, mine);
      if (mine.length > 0 && next(3) === 0) {
        const { release, by } = mine.splice(next(mine.length), 1)[0]!;
        release();
        // The count below is exact only once the release is in; another process's acquire could
        // otherwise overtake it on its own connection (CI saw that: refused one slot under the cap).
        await by.settled();
        continue;
      }
      const by = procs[next(2)]!;
      const release = await by.tryAcquire(visitor);
      expect({ seed, step, granted: release !== undefined }).toEqual({ seed, step, granted: mine.length < max });
      if (release) mine.push({ release, by });
    }
    for (const releases of held.values()) for (const { release } of releases) release();
  });
});

describe.runIf(redisReady)('event streams per visitor: a dead process', () => {
  it('frees its visitors’ leases once they expire; a live process keeps its own by renewing them', async () => {
    const [dead, live] = processes('redis', 1, 1500);
    expect(await dead!.tryAcquire('gone')).toBeDefined();
    dead!.close(); // no renewals any more, and the stream is never released
    expect(await live!.tryAcquire('gone')).toBeUndefined();
    const kept = await live!.tryAcquire('kept');
    expect(kept).toBeDefined();
    let freed: (() => void) | undefined;
    for (const until = Date.now() + 10_000; !freed && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 100));
      freed = await live!.tryAcquire('gone');
    }
    expect(freed).toBeDefined();
    // Past several lease periods, the live process's lease still holds its visitor's slot.
    expect(await dead!.tryAcquire('kept')).toBeUndefined();
    freed?.();
    kept?.();
    live!.close();
  }, 20_000);
});
