export type { AgentEvent, AgentRunStatus, EventSink, StepRecord } from './events.ts';
export { type AgentRunOptions, type AgentRunResult, runAgent } from './run-agent.ts';
export type { ToolExecutionResult, ToolExecutor } from './tool-executor.ts';
