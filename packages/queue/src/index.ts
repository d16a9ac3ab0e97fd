export { type BullQueueOptions, createBullQueue, startBullWorker } from './bullmq-queue.ts';
export { createInProcessQueue } from './in-process-queue.ts';
export { isRequeue, Requeue } from './requeue.ts';
export {
  createMemoryScheduler,
  createRedisScheduler,
  DEFAULT_LEASE_MS,
  dispatchJobId,
  type RedisSchedulerOptions,
  type RunScheduler,
  type SchedulerOptions,
  type SubmitOutcome,
  startReconciler,
} from './scheduler/index.ts';
export { type SweptWorker, startSweptWorker } from './swept-worker.ts';
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
export { DEFAULT_JOB_LOCK_MS, jobRetryPolicy, runJobData } from './types.ts';
