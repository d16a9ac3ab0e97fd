export { canonicalJson } from './canonical-json.ts';
export { DEFAULT_SUMMARY_PROMPT } from './compaction.ts';
export { createDeadlineSignal, type DeadlineSignal } from './deadline-signal.ts';
export { doneToolDefinition } from './done-tool.ts';
export { EPHEMERAL_PLACEHOLDER } from './ephemeral.ts';
export type {
  AgentEvent,
  AgentEventBody,
  AgentEventMeta,
  AgentEventType,
  AgentRunStatus,
  EventSink,
  NoticeKind,
  PendingInput,
  StepRecord,
  ToolCallRecord,
} from './events.ts';
export { runAgent } from './run-agent.ts';
export type { AgentRunOptions, AgentRunResult, CompactionOptions } from './run-options.ts';
export type { ToolExecutionResult, ToolExecutor } from './tool-executor.ts';
export { type ToolProtocolName, withToolProtocol } from './tool-protocol/index.ts';
