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
export { createHttpToolExecutor, type HttpToolExecutorOptions, type RequestInfo } from './http-tool-executor.ts';
export { readBoundedText } from './read-body.ts';
export { selectFields, shapeResponse } from './shape-response.ts';
