import { toAppError } from '@agentry/errors';
import type { ToolCallPart } from '@agentry/llm';
import { abortable } from './abortable.ts';
import type { ToolExecutionResult, ToolExecutor } from './tool-executor.ts';
import { toolError } from './tool-results.ts';

/**
 * Runs one call through the executor. A throw or a missed deadline becomes an error result the
 * model can correct; only the run's own cancellation propagates (as the signal's reason).
 *
 * @example
 * const result = await executeToolCall(tools, call, run.signal, 10_000);
 */
export async function executeToolCall(
  tools: ToolExecutor,
  call: ToolCallPart,
  runSignal: AbortSignal,
  timeoutMs?: number,
): Promise<ToolExecutionResult> {
  const controller = new AbortController();
  const onRunAbort = () => controller.abort(runSignal.reason);
  runSignal.addEventListener('abort', onRunAbort, { once: true });
  let timedOut = false;
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort(new DOMException('The tool call timed out', 'TimeoutError'));
        }, timeoutMs);
  try {
    return await abortable(tools.execute(call, { signal: controller.signal }), controller.signal);
  } catch (error) {
    runSignal.throwIfAborted();
    if (timedOut) return toolError('tool_timeout', `The tool did not answer within ${timeoutMs} ms.`);
    const appError = toAppError(error);
    return toolError(appError.code, appError.message);
  } finally {
    clearTimeout(timer);
    runSignal.removeEventListener('abort', onRunAbort);
  }
}
