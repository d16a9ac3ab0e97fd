export { type EgressOptions, egressFetch } from './egress.ts';
export { createHttpToolExecutor, type HttpToolExecutorOptions, type RequestInfo } from './http-tool-executor.ts';
export { readBoundedText } from './read-body.ts';
export { selectFields, shapeResponse } from './shape-response.ts';
