import { AppError } from '@agentry/errors';
import { afterEach, describe, expect, it } from 'vitest';
import { Requeue } from './requeue.ts';
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
      if (job.id === 'broken') throw new AppError({ code: 'validation_failed', message: 'no', category: 'user' });
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
