import { randomBytes } from 'node:crypto';
import { AppError } from '@agentry/errors';
import { availableServices, deleteRedisKeys, testServices } from '@agentry/testkit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Requeue } from './requeue.ts';
import { createMemoryTenantSlots, createRedisTenantSlots, type TenantSlots } from './tenant-slots.ts';
import { queueImplementations } from './testing/queue-implementations.ts';
import type { JobHandler } from './types.ts';

const implementations = queueImplementations(2);

describe.each(implementations)('job queue: %s', (_name, make) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  const setup = (handler: JobHandler) => {
    const h = make();
    const worker = h.start(handler);
    cleanups.push(
      async () => h.cleanup?.(),
      () => h.queue.close(),
      () => worker.close(),
    );
    return h.queue;
  };

  it('runs a job once even when enqueued twice with the same id', async () => {
    const seen: string[] = [];
    const queue = setup(async (job) => {
      seen.push(`${job.id}:${job.data.runId}:${job.attempt}`);
    });
    await queue.enqueue('job-1', { runId: 'r1', tenantId: 't1' });
    await queue.enqueue('job-1', { runId: 'r1', tenantId: 't1' });
    expect(await queue.waitUntilFinished('job-1', 10_000)).toBe('finished');
    expect(seen).toEqual(['job-1:r1:1']);
  });

  it('retries retryable failures and stops at a non-retryable one', async () => {
    const attempts: Record<string, number> = {};
    const queue = setup(async (job) => {
      attempts[job.id] = job.attempt;
      if (job.id === 'flaky' && job.attempt < 2) throw new Error('transient');
      if (job.id === 'broken') throw new AppError({ code: 'bad_config', message: 'no', category: 'user' });
    });
    await queue.enqueue('flaky', { runId: 'flaky', tenantId: 't' });
    await queue.enqueue('broken', { runId: 'broken', tenantId: 't' });
    expect(await queue.waitUntilFinished('flaky', 15_000)).toBe('finished');
    expect(await queue.waitUntilFinished('broken', 15_000)).toBe('finished');
    expect(attempts).toEqual({ flaky: 2, broken: 1 });
  });

  it('requeues a job without spending an attempt', async () => {
    const attempts: number[] = [];
    let calls = 0;
    const queue = setup(async (job) => {
      calls++;
      attempts.push(job.attempt);
      if (calls < 3) throw new Requeue(50, 'not yet');
    });
    await queue.enqueue('later', { runId: 'later', tenantId: 't' });
    expect(await queue.waitUntilFinished('later', 15_000)).toBe('finished');
    expect(attempts).toEqual([1, 1, 1]);
  });

  it('reports a timeout while the job is still running', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const queue = setup(() => gate);
    await queue.enqueue('slow', { runId: 'slow', tenantId: 't' });
    expect(await queue.waitUntilFinished('slow', 300)).toBe('timeout');
    release();
    expect(await queue.waitUntilFinished('slow', 10_000)).toBe('finished');
  });
});

const slotImplementations: Array<[string, () => TenantSlots]> = [
  ['memory', () => createMemoryTenantSlots({ perTenant: 2 })],
];
if (availableServices().redis) {
  const prefix = `test-${randomBytes(6).toString('hex')}`;
  slotImplementations.push([
    'redis',
    () => createRedisTenantSlots({ perTenant: 2, redisUrl: testServices.redisUrl, prefix, leaseMs: 300 }),
  ]);
  afterAll(() => deleteRedisKeys(prefix));
}

describe.each(slotImplementations)('tenant slots: %s', (name, make) => {
  it('caps each tenant separately and frees released slots', async () => {
    const slots = make();
    expect(await slots.acquire('a', 'r1')).toBe(true);
    expect(await slots.acquire('a', 'r2')).toBe(true);
    expect(await slots.acquire('a', 'r1')).toBe(true); // re-entrant for the same run
    expect(await slots.acquire('a', 'r3')).toBe(false);
    expect(await slots.acquire('b', 'r4')).toBe(true);
    await slots.release('a', 'r1');
    expect(await slots.acquire('a', 'r3')).toBe(true);
    if (name === 'redis') {
      // A crashed worker's lease expires on its own.
      await new Promise((r) => setTimeout(r, 400));
      expect(await slots.acquire('a', 'r5')).toBe(true);
    }
    await slots.close();
  });
});
