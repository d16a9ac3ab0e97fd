import type { ToolExecutionResult } from './tool-executor.ts';

/**
 * An error result the model sees and can act on: a stable code and a plain-language message.
 *
 * @example
 * toolError('unknown_tool', 'There is no tool named "serch".', { available: ['search'] });
 */
export function toolError(code: string, message: string, extra: Record<string, unknown> = {}): ToolExecutionResult {
  return { isError: true, errorCode: code, output: { error: code, message, ...extra } };
}
