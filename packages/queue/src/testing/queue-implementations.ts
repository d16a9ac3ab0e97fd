import { randomBytes } from 'node:crypto';
import { availableServices, deleteRedisKeys, testServices } from '@agentry/testkit';
import { createBullQueue, startBullWorker } from '../bullmq-queue.ts';
import { createInProcessQueue } from '../in-process-queue.ts';
import type { JobHandler, JobQueue, JobWorker } from '../types.ts';

/** One queue implementation under test: the producer, a way to start its worker, and cleanup. */
export interface QueueHarness {
  queue: JobQueue;
  start(handler: JobHandler): JobWorker;
  cleanup?: () => Promise<void>;
}

/**
 * The implementations the shared queue suites run against: the in-process runner always, BullMQ
 * when Redis is reachable (each on a random key prefix, deleted by `cleanup`).
 *
 * @example
 * describe.each(queueImplementations(2))('queue: %s', (_name, make) => { … });
 */
export function queueImplementations(concurrency: number): Array<[string, () => QueueHarness]> {
  const list: Array<[string, () => QueueHarness]> = [
    [
      'in-process',
      () => {
        const queue = createInProcessQueue();
        return { queue, start: (h) => queue.startWorker(h, { concurrency }) };
      },
    ],
  ];
  if (!availableServices().redis) {
    console.warn('[queue tests] NOTICE: Redis unavailable, the BullMQ queue suites are skipped.');
    return list;
  }
  list.push([
    'bullmq',
    () => {
      const options = { redisUrl: testServices.redisUrl, prefix: `test-${randomBytes(6).toString('hex')}` };
      return {
        queue: createBullQueue(options),
        start: (h) => startBullWorker(options, h, { concurrency }),
        cleanup: () => deleteRedisKeys(options.prefix),
      };
    },
  ]);
  return list;
}
