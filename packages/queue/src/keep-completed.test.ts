import { randomBytes } from 'node:crypto';
import { availableServices, deleteRedisKeys, testServices } from '@agentry/testkit';
import { Queue } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { createBullQueue, startBullWorker } from './bullmq-queue.ts';
import { redisOptionsFromUrl } from './redis-options.ts';

const prefixes: string[] = [];
afterAll(async () => {
  for (const prefix of prefixes) await deleteRedisKeys(prefix);
});

/** Runs `job-1` twice, the second enqueue after the first run completed; how many times it ran and the completed jobs kept. */
async function twice(keepCompleted?: number): Promise<{ runs: number; kept: number }> {
  const options = {
    redisUrl: testServices.redisUrl,
    prefix: `test-${randomBytes(6).toString('hex')}`,
    ...(keepCompleted !== undefined ? { keepCompleted } : {}),
  };
  prefixes.push(options.prefix);
  const queue = createBullQueue(options);
  let runs = 0;
  const worker = startBullWorker(options, async () => {
    runs++;
  });
  const inspect = new Queue('runs', { connection: redisOptionsFromUrl(options.redisUrl), prefix: options.prefix });
  try {
    await queue.enqueue('job-1', { runId: 'r1', tenantId: 't1' });
    expect(await queue.waitUntilFinished('job-1', 10_000)).toBe('finished');
    await queue.enqueue('job-1', { runId: 'r1', tenantId: 't1' });
    expect(await queue.waitUntilFinished('job-1', 10_000)).toBe('finished');
    // The second run (if any) has been taken once nothing waits or runs.
    const pending = async () => {
      const counts = await queue.counts();
      return counts.waiting + counts.active;
    };
    for (let i = 0; i < 50 && (await pending()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    return { runs, kept: await inspect.getCompletedCount() };
  } finally {
    await inspect.close();
    await worker.close();
    await queue.close();
  }
}

describe.runIf(availableServices().redis)('BullMQ completed jobs', () => {
  it('kept by default: a completed job id refuses a second enqueue', async () => {
    expect(await twice()).toEqual({ runs: 1, kept: 1 });
  });

  it('keepCompleted 0 (the run queue): removed as it completes, so the id is free again', async () => {
    const { runs, kept } = await twice(0);
    expect(kept).toBe(0);
    expect(runs).toBe(2);
  });
});
