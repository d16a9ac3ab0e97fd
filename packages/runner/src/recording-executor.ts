import type { ToolExecutionResult, ToolExecutor } from '@agentry/agent';
import { completeToolCall, type Db, startToolCall } from '@agentry/db';
import type { WriteBehind } from './write-behind.ts';

export interface RecordingExecutorOptions {
  inner: ToolExecutor;
  db: Db;
  run: { id: string; tenantId: string };
  fence: number;
  /**
   * The attempt's write-behind buffer: a start record takes what the attempt put off (the model's
   * message) into its transaction, and the last call in flight puts its completion off to the
   * step's checkpoint. Omitted = every record is its own transaction.
   */
  writes?: WriteBehind;
  /** Whether a tool may be sent again when a crash left a call's outcome unknown. */
  isIdempotent: (toolName: string) => boolean;
}

/** What the model reads for a call a person declined. */
export function declinedResult(): ToolExecutionResult {
  return {
    isError: true,
    errorCode: 'declined',
    output: { error: 'declined', message: 'A person declined this tool call. Do not try it again; tell the user.' },
  };
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
  const { db, run, fence, writes } = options;
  let inFlight = 0;
  const start = (call: { id: string; name: string }) => {
    const input = {
      runId: run.id,
      tenantId: run.tenantId,
      toolCallId: call.id,
      name: call.name,
      idempotencyKey: idempotencyKeyFor(run.id, call.id),
    };
    return writes
      ? writes.commit((tx) => startToolCall(tx, input, fence)).then((started) => started!)
      : startToolCall(db, input, fence);
  };
  const complete = async (toolCallId: string, result: ToolExecutionResult) => {
    const outcome = {
      output: result.output,
      isError: result.isError,
      ...(result.errorCode ? { errorCode: result.errorCode } : {}),
    };
    // The step's checkpoint follows right after the last call in flight: the completion travels
    // with it. One that others are still running beside is written now, not held behind them.
    if (writes && inFlight === 1) return writes.defer({ completions: [{ toolCallId, result: outcome }] });
    await completeToolCall(db, { runId: run.id, tenantId: run.tenantId, toolCallId }, fence, outcome);
  };
  return {
    definitions: () => options.inner.definitions(),
    async execute(call, callOptions) {
      inFlight++;
      try {
        return await record(call, callOptions);
      } finally {
        inFlight--;
      }
    },
  };

  async function record(
    call: Parameters<ToolExecutor['execute']>[0],
    callOptions: Parameters<ToolExecutor['execute']>[1],
  ): Promise<ToolExecutionResult> {
    const { record, created } = await start(call);
    if (!created && record.status === 'declined') {
      const declined = declinedResult();
      await complete(call.id, declined);
      return declined;
    }
    if (!created && record.status === 'approved') {
      // Approved by a person: now it runs, once; the record moves on to started → completed.
      const result = await options.inner.execute(call, callOptions);
      await complete(call.id, result);
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
    if (result.errorCode !== 'tool_cancelled') await complete(call.id, result);
    return result;
  }
}
