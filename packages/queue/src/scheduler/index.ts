export { createMemoryScheduler } from './memory-scheduler.ts';
export { startReconciler } from './reconciler.ts';
export { createRedisScheduler, type RedisSchedulerOptions } from './redis-scheduler.ts';
export {
  DEFAULT_LEASE_MS,
  dispatchJobId,
  type RunScheduler,
  type SchedulerOptions,
  type SubmitOutcome,
} from './run-scheduler.ts';
