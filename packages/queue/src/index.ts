export { type BullQueueOptions, createBullQueue, startBullWorker } from './bullmq-queue.ts';
export { createInProcessQueue } from './in-process-queue.ts';
export { isRequeue, Requeue } from './requeue.ts';
export {
  createMemoryTenantSlots,
  createRedisTenantSlots,
  type TenantSlotOptions,
  type TenantSlots,
} from './tenant-slots.ts';
export type {
  Job,
  JobCounts,
  JobHandler,
  JobQueue,
  JobWorker,
  RunJobData,
  WaitOutcome,
  WorkerOptions,
} from './types.ts';
export { jobRetryPolicy, runJobData } from './types.ts';
