export { canonicalJson } from './canonical-json.ts';
export { DEFAULT_SUMMARY_PROMPT } from './compaction.ts';
export { createDeadlineSignal, type DeadlineSignal } from './deadline-signal.ts';
export { doneToolDefinition } from './done-tool.ts';
export { createEmitter, type Emit } from './emitter.ts';
export { EPHEMERAL_PLACEHOLDER } from './ephemeral.ts';
export type {
  AgentEvent,
  AgentEventBody,
  AgentEventMeta,
  AgentEventType,
  AgentRunStatus,
  EventSink,
  FlowAction,
  NoticeKind,
  PendingInput,
  StepRecord,
  ToolCallRecord,
} from './events.ts';
export { executeToolCall } from './execute-tool-call.ts';
export { runAgent } from './run-agent.ts';
export type { AgentRunOptions, AgentRunResult, CompactionOptions } from './run-options.ts';
export type { ToolExecutionResult, ToolExecutor } from './tool-executor.ts';
export { type ToolProtocolName, withToolProtocol } from './tool-protocol/index.ts';
