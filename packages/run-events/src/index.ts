export { createDeltaCoalescer, type DeltaCoalescer, type DeltaCoalescerOptions } from './delta-coalescer.ts';
export { createMemoryBus, defaultMemoryBusLimits, type MemoryBusLimits } from './memory-bus.ts';
export { createRedisBus, type RedisBusOptions, type RedisRunEventBus, type RunEventBusStats } from './redis-bus.ts';
export { createMemoryRunControl, createRedisRunControl, type RunControl } from './run-control.ts';
export type { RunEvent, RunEventBus, RunEventBusLimits, RunEventRecord, SubscribeOptions } from './types.ts';
export { defaultLimits, RunEventBusUnavailableError } from './types.ts';
