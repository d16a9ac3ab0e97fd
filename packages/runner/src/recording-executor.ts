import type { ToolExecutionResult, ToolExecutor } from '@agentry/agent';
import { completeToolCall, type Db, startToolCall } from '@agentry/db';

export interface RecordingExecutorOptions {
  inner: ToolExecutor;
  db: Db;
  run: { id: string; tenantId: string };
  fence: number;
  /** Whether a tool may be sent again when a crash left a call's outcome unknown. */
  isIdempotent: (toolName: string) => boolean;
}

/** The Idempotency-Key a tool call carries: stable across attempts of the same run. */
export function idempotencyKeyFor(runId: string, toolCallId: string): string {
  return `${runId}:${toolCallId}`;
}

/**
 * Makes tool side effects at-most-once per tool call id (where the endpoint allows): each call is
 * recorded as started before it is sent and completed after. On a resumed run a completed call is
 * answered from the record, never re-sent; a call left "started" by a crash is re-sent (same
 * Idempotency-Key) only when the tool is idempotent, and otherwise reported to the model as unknown.
 *
 * @example
 * const tools = createRecordingExecutor({ inner: http, db, run, fence, isIdempotent: (n) => byName.get(n)?.idempotent ?? false });
 */
export function createRecordingExecutor(options: RecordingExecutorOptions): ToolExecutor {
  const { db, run, fence } = options;
  return {
    definitions: () => options.inner.definitions(),
    async execute(call, callOptions) {
      const { record, created } = await startToolCall(
        db,
        {
          runId: run.id,
          tenantId: run.tenantId,
          toolCallId: call.id,
          name: call.name,
          idempotencyKey: idempotencyKeyFor(run.id, call.id),
        },
        fence,
      );
      if (!created && record.status === 'declined') {
        const declined: ToolExecutionResult = {
          isError: true,
          errorCode: 'declined',
          output: {
            error: 'declined',
            message: 'A person declined this tool call. Do not try it again; tell the user.',
          },
        };
        await completeToolCall(db, { runId: run.id, tenantId: run.tenantId, toolCallId: call.id }, fence, declined);
        return declined;
      }
      if (!created && record.status === 'approved') {
        // Approved by a person: now it runs, once; the record moves on to started → completed.
        const result = await options.inner.execute(call, callOptions);
        await completeToolCall(db, { runId: run.id, tenantId: run.tenantId, toolCallId: call.id }, fence, {
          output: result.output,
          isError: result.isError,
          ...(result.errorCode ? { errorCode: result.errorCode } : {}),
        });
        return result;
      }
      if (!created && record.status === 'completed') {
        return {
          output: record.output,
          isError: record.isError ?? false,
          ...(record.errorCode ? { errorCode: record.errorCode } : {}),
          meta: { replayed: true },
        };
      }
      const result: ToolExecutionResult =
        !created && !options.isIdempotent(call.name)
          ? {
              isError: true,
              errorCode: 'outcome_unknown',
              output: {
                error: 'outcome_unknown',
                message:
                  'This call was sent before the run was interrupted and its outcome is unknown. It was not sent again because repeating it could duplicate its effect. Tell the user, or check its effect with another tool before trying again.',
              },
            }
          : await options.inner.execute(call, callOptions);
      // A cancelled call has no settled outcome: leave it "started" so a resume treats it as unknown.
      if (result.errorCode !== 'tool_cancelled') {
        await completeToolCall(db, { runId: run.id, tenantId: run.tenantId, toolCallId: call.id }, fence, {
          output: result.output,
          isError: result.isError,
          ...(result.errorCode ? { errorCode: result.errorCode } : {}),
        });
      }
      return result;
    },
  };
}
