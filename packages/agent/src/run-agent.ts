import { toAppError } from '@agentry/errors';
import { createDeadlineSignal } from './deadline-signal.ts';
import { createLoopState, type LoopState, type Stop } from './loop-state.ts';
import type { AgentRunOptions, AgentRunResult } from './run-options.ts';
import { runStep } from './run-step.ts';

export type { AgentRunOptions, AgentRunResult, CompactionOptions } from './run-options.ts';

/**
 * The agent loop: call the model, run the tools it asks for, feed results back, until it answers
 * without tool calls (or calls `done` when required) or a limit is hit. Limits, cancellation and
 * timeouts end the run with a status, never an exception. Depends only on interfaces (model, tools,
 * sinks).
 *
 * @example
 * const result = await runAgent({ model, tools, system: prompt, history, maxSteps: 8, maxToolCalls: 20, timeoutMs: 60_000 });
 * if (result.status !== 'completed') console.warn(result.status, result.reason);
 */
export async function runAgent(options: AgentRunOptions): Promise<AgentRunResult> {
  const run = createDeadlineSignal(options.signal, options.timeoutMs, 'The run timed out');
  const state = createLoopState(options, run.signal);
  try {
    await state.emit({
      type: 'run-started',
      provider: options.model.provider,
      modelId: options.model.modelId,
      tools: state.definitions.map((tool) => tool.name),
    });
    return await finish(state, await loop(state));
  } catch (error) {
    const stopped = run.stopStatus();
    if (stopped === 'cancelled') return finish(state, { status: 'cancelled', reason: 'The run was cancelled' });
    if (stopped === 'timed_out') {
      return finish(state, { status: 'timed_out', reason: `The run did not finish within ${options.timeoutMs} ms` });
    }
    return fail(state, error);
  } finally {
    run.dispose();
  }
}

async function loop(state: LoopState): Promise<Stop> {
  const { maxSteps } = state.options;
  for (let index = 0; index < maxSteps; index++) {
    state.signal.throwIfAborted();
    const stop = await runStep(state, index);
    if (stop) return stop;
  }
  return { status: 'max_steps', reason: `The run stopped after ${maxSteps} steps without a final answer` };
}

async function finish(state: LoopState, stop: Stop): Promise<AgentRunResult> {
  const durationMs = performance.now() - state.startedAt;
  const base = baseResult(state, durationMs);
  if (stop.status === 'cancelled') {
    await state.emit({ type: 'run-cancelled', reason: stop.reason ?? 'cancelled', usage: state.usage, durationMs });
  } else {
    await state.emit({
      type: 'run-finished',
      status: stop.status,
      ...(stop.reason ? { reason: stop.reason } : {}),
      usage: state.usage,
      ...(state.finalText === undefined ? {} : { finalText: state.finalText }),
      durationMs,
    });
  }
  return {
    ...base,
    status: stop.status,
    ...(stop.reason ? { reason: stop.reason } : {}),
    ...(state.pending ? { pending: state.pending } : {}),
  };
}

async function fail(state: LoopState, error: unknown): Promise<AgentRunResult> {
  const durationMs = performance.now() - state.startedAt;
  const appError = toAppError(error);
  try {
    const summary = { code: appError.code, message: appError.message };
    await state.emit({ type: 'run-failed', error: summary, usage: state.usage, durationMs });
  } catch {
    // The sink failing too must not hide the original error.
  }
  return { ...baseResult(state, durationMs), status: 'failed', reason: appError.message, error: appError.toJSON() };
}

function baseResult(state: LoopState, durationMs: number): Omit<AgentRunResult, 'status'> {
  return {
    messages: state.produced,
    steps: state.steps,
    usage: state.usage,
    toolCallCount: state.toolCallCount,
    ...(state.finalText === undefined ? {} : { finalText: state.finalText }),
    durationMs,
  };
}
