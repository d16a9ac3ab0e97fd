import type { ToolResultPart } from '@agentry/llm';
import type { Emit } from './emitter.ts';
import type { ToolCallRecord } from './events.ts';
import { executeToolCall } from './execute-tool-call.ts';
import type { CallPlan } from './plan-tool-calls.ts';
import type { ToolExecutor } from './tool-executor.ts';

/** One finished call: the part fed back to the model and the record for traces. */
export interface ToolRun {
  plan: CallPlan;
  part: ToolResultPart;
  record: ToolCallRecord;
  /** The tool asked for the run to end after this step. */
  endsRun?: boolean;
}

export interface RunToolCallsInput {
  tools: ToolExecutor;
  signal: AbortSignal;
  emit: Emit;
  step: number;
  parallel: boolean;
  toolTimeoutMs?: number;
}

/**
 * Runs the planned calls of one step, in parallel unless `parallel` is false. Results come back in
 * the model's order whatever order they finish in; each `tool-result` event is sent as it finishes.
 *
 * @example
 * const runs = await runToolCalls(plans, { tools, signal, emit, step: 0, parallel: true });
 */
export async function runToolCalls(plans: CallPlan[], input: RunToolCallsInput): Promise<ToolRun[]> {
  if (input.parallel) return Promise.all(plans.map((plan) => runOne(plan, input)));
  const out: ToolRun[] = [];
  for (const plan of plans) out.push(await runOne(plan, input));
  return out;
}

async function runOne(plan: CallPlan, input: RunToolCallsInput): Promise<ToolRun> {
  const { call } = plan;
  const started = performance.now();
  const result =
    plan.kind === 'execute' ? await executeToolCall(input.tools, call, input.signal, input.toolTimeoutMs) : plan.result;
  const durationMs = performance.now() - started;
  const errorCode = result.isError ? result.errorCode : undefined;
  // Traces show a cached result as such, the way they show an error code.
  const cached = result.meta?.cached === true ? { cached: true as const } : {};
  await input.emit({
    type: 'tool-result',
    step: input.step,
    toolCallId: call.id,
    toolName: call.name,
    output: result.output,
    isError: result.isError,
    ...(errorCode ? { errorCode } : {}),
    ...cached,
    durationMs,
  });
  return {
    plan,
    part: {
      type: 'tool_result',
      toolCallId: call.id,
      toolName: call.name,
      output: result.output,
      ...(result.isError ? { isError: true } : {}),
    },
    record: {
      id: call.id,
      name: call.name,
      durationMs,
      isError: result.isError,
      ...(errorCode ? { errorCode } : {}),
      ...cached,
    },
    ...(result.endsRun ? { endsRun: true } : {}),
  };
}
