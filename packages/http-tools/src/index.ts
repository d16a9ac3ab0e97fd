export { type CheckedTarget, checkTarget as checkEgressTarget } from './egress/check-target.ts';
export {
  type AddressClass,
  type AddressRule,
  classifyAddress,
  createEgressPolicy,
  crossOriginSafeHeaders,
  EgressError,
  type EgressErrorCode,
  type EgressLookup,
  type EgressOptions,
  type EgressPolicy,
  type EgressPolicyOptions,
  type EgressSend,
  type EgressSendInit,
  egressFetch,
  invalidAllowlistEntries,
  isEgressError,
  mergeAllowlists,
  type ResolvedAddress,
  strictEgressPolicy,
  withAllowlist,
} from './egress.ts';
export { egressModelFetch } from './egress-model-fetch.ts';
export { createHttpToolExecutor, type HttpToolExecutorOptions, type RequestInfo } from './http-tool-executor.ts';
export {
  createMemoryToolResultCache,
  type MemoryToolResultCacheOptions,
} from './memory-tool-result-cache.ts';
export { readBoundedText } from './read-body.ts';
export { createRedisToolResultCache, type RedisToolResultCacheOptions } from './redis-tool-result-cache.ts';
export { selectFields, shapeResponse } from './shape-response.ts';
export {
  type CachedToolResponse,
  defaultToolCacheBounds,
  type ToolCacheBounds,
  type ToolCacheKey,
  type ToolResultCache,
} from './tool-result-cache.ts';
