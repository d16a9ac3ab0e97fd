export { type EmbeddingModel, normalizeVector, resolveEmbeddingDimensions } from './embeddings.ts';
export type {
  ContentPart,
  Message,
  ReasoningPart,
  Role,
  SourceCitation,
  TextPart,
  ToolCallPart,
  ToolResultPart,
} from './messages.ts';
export { textOf, toolCallsOf } from './messages.ts';
export type {
  CallOptions,
  FinishReason,
  LanguageModel,
  ModelRequest,
  ModelResponse,
  StreamEvent,
  ToolChoice,
  ToolDefinition,
  Usage,
} from './model.ts';
export { addUsage, emptyUsage } from './model.ts';
export {
  abortedError,
  type HttpFailure,
  isTransportFailure,
  modelConnectionError,
  modelHttpError,
  retryAfterMsOf,
  scrubKey,
  unexpectedModelError,
} from './model-errors.ts';
export { observeStream, type StreamObserver } from './observe-stream.ts';
export { parseToolArguments } from './tool-arguments.ts';
