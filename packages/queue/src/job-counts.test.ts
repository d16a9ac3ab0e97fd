import { afterEach, describe, expect, it } from 'vitest';
import { Requeue } from './requeue.ts';
import { queueImplementations } from './testing/queue-implementations.ts';
import type { JobCounts, JobQueue } from './types.ts';

const implementations = queueImplementations(1);

async function eventually(queue: JobQueue, expected: JobCounts): Promise<void> {
  const until = Date.now() + 10_000;
  let counts = await queue.counts();
  while (JSON.stringify(counts) !== JSON.stringify(expected) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    counts = await queue.counts();
  }
  expect(counts).toEqual(expected);
}

describe.each(implementations)('job counts: %s', (_name, make) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('reports waiting, active and delayed jobs, and none once they finished', async () => {
    const h = make();
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const requeued = new Set<string>();
    const worker = h.start(async (job) => {
      if (job.id === 'later' && !requeued.has(job.id)) {
        requeued.add(job.id);
        throw new Requeue(1500, 'not yet');
      }
      if (job.id === 'slow') await blocked;
    });
    cleanups.push(
      async () => h.cleanup?.(),
      () => h.queue.close(),
      () => worker.close(),
    );
    await eventually(h.queue, { waiting: 0, active: 0, delayed: 0 });
    await h.queue.enqueue('slow', { runId: 'slow', tenantId: 't' });
    await eventually(h.queue, { waiting: 0, active: 1, delayed: 0 });
    await h.queue.enqueue('next', { runId: 'next', tenantId: 't' });
    await eventually(h.queue, { waiting: 1, active: 1, delayed: 0 });
    release();
    await h.queue.enqueue('later', { runId: 'later', tenantId: 't' });
    await eventually(h.queue, { waiting: 0, active: 0, delayed: 1 });
    expect(await h.queue.waitUntilFinished('later', 10_000)).toBe('finished');
    await eventually(h.queue, { waiting: 0, active: 0, delayed: 0 });
  });
});
