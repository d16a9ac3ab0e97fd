import type { ToolCallPart, ToolDefinition } from '@agentry/llm';

/** What running one tool call produced. Failures are data (`isError`), never exceptions. */
export interface ToolExecutionResult {
  /** What the model sees: a string or JSON value. */
  output: unknown;
  isError: boolean;
  /** Stable code when `isError` (e.g. `invalid_arguments`, `tool_timeout`, `http_error`). */
  errorCode?: string;
  /**
   * The run ends after this step, as it does when the model answers (a flow started by the model
   * speaks next, not the model).
   */
  endsRun?: boolean;
  /** Facts for traces: HTTP status, duration, request summary. Never secrets. */
  meta?: Record<string, unknown>;
}

/**
 * Runs the tool calls the model asks for. The agent loop depends only on this interface, never on
 * HTTP, databases or SDKs. Implementations must turn every failure into an error result.
 *
 * @example
 * const result = await executor.execute({ type: 'tool_call', id: 'c1', name: 'lookup', arguments: { q: 'x' } });
 */
export interface ToolExecutor {
  /** The tools offered to the model. */
  definitions(): ToolDefinition[];
  execute(call: ToolCallPart, options?: { signal?: AbortSignal }): Promise<ToolExecutionResult>;
}
