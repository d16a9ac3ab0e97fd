export type { ToolExecutionResult, ToolExecutor } from './tool-executor.ts';
