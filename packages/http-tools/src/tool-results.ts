import type { ToolExecutionResult } from '@agentry/agent';

/**
 * An error result the model can read and act on: `{ error: code, message, ...details }`.
 *
 * @example
 * errorResult('unknown_tool', 'There is no tool named x', { available: ['a'] });
 */
export function errorResult(
  code: string,
  message: string,
  details: Record<string, unknown> = {},
  meta?: Record<string, unknown>,
): ToolExecutionResult {
  return {
    output: { error: code, message, ...details },
    isError: true,
    errorCode: code,
    ...(meta ? { meta } : {}),
  };
}
