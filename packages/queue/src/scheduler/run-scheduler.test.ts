import { randomBytes } from 'node:crypto';
import { availableServices, deleteRedisKeys, testServices } from '@agentry/testkit';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunJobData } from '../types.ts';
import { createMemoryScheduler } from './memory-scheduler.ts';
import { createRedisScheduler } from './redis-scheduler.ts';
import type { RunScheduler, SchedulerOptions } from './run-scheduler.ts';

/** A scheduler under test with the jobs it dispatched, in order. */
interface Harness {
  scheduler: RunScheduler;
  dispatched: RunJobData[];
}

type Make = (
  options: { perTenant: number; leaseMs?: number } & Partial<Pick<SchedulerOptions, 'dispatch' | 'onError'>>,
) => Harness;

const prefixes: string[] = [];
const implementations: Array<[string, Make]> = [
  [
    'memory',
    (options) => {
      const dispatched: RunJobData[] = [];
      const scheduler = createMemoryScheduler({
        dispatch: async (_id, data) => {
          dispatched.push(data);
        },
        ...options,
      });
      return { scheduler, dispatched };
    },
  ],
];
if (availableServices().redis) {
  implementations.push([
    'redis',
    (options) => {
      const prefix = `test-${randomBytes(6).toString('hex')}`;
      prefixes.push(prefix);
      const dispatched: RunJobData[] = [];
      const scheduler = createRedisScheduler({
        redisUrl: testServices.redisUrl,
        prefix,
        dispatch: async (_id, data) => {
          dispatched.push(data);
        },
        ...options,
      });
      return { scheduler, dispatched };
    },
  ]);
  afterAll(async () => {
    for (const prefix of prefixes) await deleteRedisKeys(prefix);
  });
} else {
  console.warn('[scheduler tests] NOTICE: Redis unavailable, the Redis scheduler suite is SKIPPED.');
}

const run = (tenantId: string, runId: string): RunJobData => ({ runId, tenantId, conversationId: `c-${runId}` });
const ids = (list: RunJobData[]) => list.map((r) => r.runId);

describe.each(implementations)('run scheduler: %s', (name, make) => {
  it('dispatches up to the cap per tenant and parks the rest, without holding up other tenants', async () => {
    const { scheduler, dispatched } = make({ perTenant: 2 });
    const outcomes = [];
    for (const id of ['a1', 'a2', 'a3', 'a4']) outcomes.push(await scheduler.submit(run('A', id)));
    expect(outcomes).toEqual(['dispatched', 'dispatched', 'parked', 'parked']);
    expect(await scheduler.backlog()).toBe(2);
    expect(await scheduler.submit(run('B', 'b1'))).toBe('dispatched');
    expect(ids(dispatched)).toEqual(['a1', 'a2', 'b1']);
    // The job data travels whole, also through the wait list.
    expect(dispatched[0]).toEqual(run('A', 'a1'));
    // A parked run submitted again keeps its place.
    expect(await scheduler.submit(run('A', 'a3'))).toBe('parked');
    expect([...(await scheduler.tracked('A', ['a1', 'a3', 'zz']))].sort()).toEqual(['a1', 'a3']);
    await scheduler.close();
  });

  it('a released slot goes to the oldest parked run, which the worker then holds', async () => {
    const { scheduler, dispatched } = make({ perTenant: 1 });
    await scheduler.submit(run('A', 'a1'));
    await scheduler.submit(run('A', 'a2'));
    await scheduler.submit(run('A', 'a3'));
    expect(await scheduler.acquire(run('A', 'a1'))).toBe(true);
    await scheduler.release(run('A', 'a1'));
    expect(ids(dispatched)).toEqual(['a1', 'a2']);
    expect(await scheduler.acquire(run('A', 'a2'))).toBe(true);
    // A job of a run that holds no slot, at the cap: parked behind the others, the job ends.
    expect(await scheduler.acquire(run('A', 'x9'))).toBe(false);
    await scheduler.release(run('A', 'a2'));
    await scheduler.release(run('A', 'a3'));
    expect(ids(dispatched)).toEqual(['a1', 'a2', 'a3', 'x9']);
    await scheduler.close();
  });

  it('a submit while the run holds its slot is acted on when the job lets go (no lost wake-up)', async () => {
    const { scheduler, dispatched } = make({ perTenant: 1 });
    await scheduler.submit(run('A', 'a1'));
    expect(await scheduler.acquire(run('A', 'a1'))).toBe(true);
    // Its conversation's earlier run ended while this job was finding out it was not its turn.
    expect(await scheduler.submit(run('A', 'a1'))).toBe('held');
    await scheduler.release(run('A', 'a1'));
    expect(ids(dispatched)).toEqual(['a1', 'a1']);
    // Without such a submit, a release does not dispatch the run again.
    expect(await scheduler.acquire(run('A', 'a1'))).toBe(true);
    await scheduler.release(run('A', 'a1'));
    expect(ids(dispatched)).toEqual(['a1', 'a1']);
    await scheduler.close();
  });

  it('forgets a cancelled parked run', async () => {
    const { scheduler, dispatched } = make({ perTenant: 1 });
    await scheduler.submit(run('A', 'a1'));
    await scheduler.submit(run('A', 'a2'));
    await scheduler.submit(run('A', 'a3'));
    await scheduler.forget(run('A', 'a2'));
    expect((await scheduler.tracked('A', ['a2'])).size).toBe(0);
    await scheduler.release(run('A', 'a1'));
    expect(ids(dispatched)).toEqual(['a1', 'a3']);
    await scheduler.close();
  });

  it("a dead worker's slot frees itself: reconcile hands it to a parked run", async () => {
    const { scheduler, dispatched } = make({ perTenant: 1, leaseMs: 200 });
    await scheduler.submit(run('A', 'a1'));
    expect(await scheduler.acquire(run('A', 'a1'))).toBe(true);
    await scheduler.submit(run('A', 'a2'));
    expect(await scheduler.reconcile()).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(await scheduler.reconcile()).toBe(1);
    expect(ids(dispatched)).toEqual(['a1', 'a2']);
    expect((await scheduler.tracked('A', ['a1'])).size).toBe(0);
    await scheduler.close();
  });

  it('under any interleaving: never more than the cap, and every submitted run runs', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('submit' as const), tenant: fc.constantFrom('A', 'B'), n: fc.nat(5) }),
      fc.record({ kind: fc.constant('work' as const), pick: fc.nat(20) }),
      fc.record({ kind: fc.constant('forget' as const), tenant: fc.constantFrom('A', 'B'), n: fc.nat(5) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), fc.integer({ min: 1, max: 3 }), async (ops, cap) => {
        const { scheduler, dispatched } = make({ perTenant: cap });
        const wanted = new Set<string>();
        const ran = new Set<string>();
        const running = new Map<string, RunJobData>();
        let pending = 0; // dispatched jobs not yet taken by a "worker"
        const maxRunning = { A: 0, B: 0 } as Record<string, number>;
        const takeJob = async (job: RunJobData) => {
          if (!(await scheduler.acquire(job))) return;
          running.set(job.runId, job);
          const count = [...running.values()].filter((r) => r.tenantId === job.tenantId).length;
          maxRunning[job.tenantId] = Math.max(maxRunning[job.tenantId]!, count);
          if (wanted.has(job.runId)) ran.add(job.runId);
          running.delete(job.runId);
          await scheduler.release(job);
        };
        for (const o of ops) {
          const id = `${o.kind === 'work' ? '' : o.tenant}${o.kind === 'work' ? '' : o.n}`;
          if (o.kind === 'submit') {
            wanted.add(id);
            ran.delete(id);
            await scheduler.submit(run(o.tenant, id));
          } else if (o.kind === 'forget') {
            // Only a run not yet dispatched can be forgotten (a cancelled queued run).
            if ((await scheduler.tracked(o.tenant, [id])).size > 0 && !dispatched.some((d) => d.runId === id)) {
              await scheduler.forget(run(o.tenant, id));
              wanted.delete(id);
            }
          } else {
            const jobs = dispatched.slice(pending);
            if (jobs.length > 0) {
              const job = jobs[o.pick % jobs.length]!;
              pending = dispatched.length;
              // Take every job dispatched so far, the picked one first.
              await takeJob(job);
              for (const other of jobs) if (other !== job) await takeJob(other);
            }
          }
        }
        // Drain: workers take every job until none is left.
        for (let round = 0; round < 100 && pending < dispatched.length; round++) {
          const jobs = dispatched.slice(pending);
          pending = dispatched.length;
          for (const job of jobs) await takeJob(job);
        }
        // Nothing is left parked, and the parked-run counter agrees.
        expect(await scheduler.backlog()).toBe(0);
        await scheduler.close();
        expect(maxRunning.A).toBeLessThanOrEqual(cap);
        expect(maxRunning.B).toBeLessThanOrEqual(cap);
        // Every run submitted (and not forgotten) held a slot after its last submit.
        expect([...wanted].filter((id) => !ran.has(id))).toEqual([]);
      }),
      { numRuns: name === 'redis' ? 30 : 150 },
    );
  }, 60_000);
});

describe.each(implementations)('run scheduler dispatch failures: %s', (_name, make) => {
  it("a failed dispatch of the submitted run throws and gives its slot back; another's is reported", async () => {
    const reported: string[] = [];
    let failFor = 'a1';
    const dispatched: string[] = [];
    const { scheduler } = make({
      perTenant: 1,
      dispatch: async (_id: string, data: RunJobData) => {
        if (data.runId === failFor) throw new Error('queue down');
        dispatched.push(data.runId);
      },
      onError: (_m: string, _e: unknown, run?: RunJobData) => {
        if (run) reported.push(run.runId);
      },
    });
    await expect(scheduler.submit(run('A', 'a1'))).rejects.toThrow('queue down');
    expect((await scheduler.tracked('A', ['a1'])).size).toBe(0);
    // The slot is free again: the next run is dispatched.
    failFor = 'a3';
    expect(await scheduler.submit(run('A', 'a2'))).toBe('dispatched');
    expect(await scheduler.submit(run('A', 'a3'))).toBe('parked');
    await scheduler.release(run('A', 'a2'));
    expect(reported).toEqual(['a3']);
    expect(dispatched).toEqual(['a2']);
    await scheduler.close();
  });
});
