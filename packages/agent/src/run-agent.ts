import { type SerializedAppError, toAppError } from '@agentry/errors';
import {
  addUsage,
  emptyUsage,
  type LanguageModel,
  type Message,
  type ModelRequest,
  type ModelResponse,
  type ToolCallPart,
  type ToolChoice,
  type ToolResultPart,
  type Usage,
} from '@agentry/llm';
import type { AgentRunStatus, EventSink, StepRecord } from './events.ts';
import type { ToolExecutionResult, ToolExecutor } from './tool-executor.ts';

export interface AgentRunOptions {
  model: LanguageModel;
  tools: ToolExecutor;
  system: string;
  /** The conversation so far, ending with the new user message. */
  history: Message[];
  maxSteps: number;
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  temperature?: number;
  maxOutputTokens?: number;
  signal?: AbortSignal;
  onEvent?: EventSink;
  /** Called after every step with the messages it produced: the place to persist a checkpoint. */
  onStep?: (messages: Message[], step: StepRecord) => Promise<void>;
}

export interface AgentRunResult {
  status: AgentRunStatus;
  reason?: string;
  /** Messages produced by this run, in order. */
  messages: Message[];
  steps: StepRecord[];
  usage: Usage;
  toolCallCount: number;
  error?: SerializedAppError;
}

/**
 * The agent loop: call the model, run the tools it asks for, feed results back, until it answers
 * without tool calls or a limit is hit. Depends only on interfaces (model, tools, sinks).
 *
 * @example
 * const result = await runAgent({ model, tools, system: prompt, history, maxSteps: 8 });
 */
export async function runAgent(options: AgentRunOptions): Promise<AgentRunResult> {
  const emit = options.onEvent ?? (() => {});
  const transcript = [...options.history];
  const produced: Message[] = [];
  const steps: StepRecord[] = [];
  let usage = emptyUsage();
  let toolCallCount = 0;
  await emit({ type: 'run-started' });

  try {
    for (let index = 0; index < options.maxSteps; index++) {
      options.signal?.throwIfAborted();
      await emit({ type: 'step-started', step: index });
      const started = performance.now();
      const response = await streamStep(options, transcript, index, emit);
      const modelLatencyMs = performance.now() - started;
      usage = addUsage(usage, response.usage);

      const assistant: Message = { role: 'assistant', content: response.content };
      const calls = response.content.filter((p): p is ToolCallPart => p.type === 'tool_call');
      const stepMessages: Message[] = [assistant];
      const record: StepRecord = {
        index,
        modelLatencyMs,
        usage: response.usage,
        finishReason: response.finishReason,
        toolCalls: [],
      };
      if (calls.length > 0) {
        for (const call of calls) await emit({ type: 'tool-call', step: index, toolCall: call });
        const results = await runTools(options, calls, index, emit);
        toolCallCount += calls.length;
        record.toolCalls = results.map((r) => r.record);
        stepMessages.push({ role: 'tool', content: results.map((r) => r.part) });
      }
      transcript.push(...stepMessages);
      produced.push(...stepMessages);
      steps.push(record);
      await options.onStep?.(stepMessages, record);
      await emit({ type: 'step-finished', step: record });
      if (calls.length === 0) return finish('completed');
    }
    return finish('max_steps', `The run stopped after ${options.maxSteps} steps without a final answer`);
  } catch (error) {
    if (options.signal?.aborted) return finish('cancelled', 'The run was cancelled');
    const appError = toAppError(error);
    await emit({ type: 'run-failed', error: { code: appError.code, message: appError.message } });
    return { status: 'failed', messages: produced, steps, usage, toolCallCount, error: appError.toJSON() };
  }

  async function finish(status: AgentRunStatus, reason?: string): Promise<AgentRunResult> {
    await emit({ type: 'run-finished', status, ...(reason ? { reason } : {}), usage });
    return { status, ...(reason ? { reason } : {}), messages: produced, steps, usage, toolCallCount };
  }
}

async function streamStep(options: AgentRunOptions, transcript: Message[], step: number, emit: EventSink): Promise<ModelResponse> {
  const definitions = options.tools.definitions();
  const request: ModelRequest = {
    system: options.system,
    messages: transcript,
    ...(definitions.length > 0 ? { tools: definitions, toolChoice: options.toolChoice ?? 'auto' } : {}),
    ...(definitions.length > 0 && options.parallelToolCalls !== undefined ? { parallelToolCalls: options.parallelToolCalls } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
  };
  let response: ModelResponse | undefined;
  for await (const event of options.model.stream(request, { signal: options.signal })) {
    if (event.type === 'text-delta') await emit({ type: 'text-delta', step, delta: event.delta });
    else if (event.type === 'reasoning-delta') await emit({ type: 'reasoning-delta', step, delta: event.delta });
    else if (event.type === 'finish') response = event.response;
  }
  if (!response) throw new Error('The model stream ended without a finish event');
  return response;
}

interface ToolRun {
  part: ToolResultPart;
  record: StepRecord['toolCalls'][number];
}

async function runTools(options: AgentRunOptions, calls: ToolCallPart[], step: number, emit: EventSink): Promise<ToolRun[]> {
  const runOne = async (call: ToolCallPart): Promise<ToolRun> => {
    const started = performance.now();
    const result = await executeSafely(options.tools, call, options.signal);
    const durationMs = performance.now() - started;
    await emit({
      type: 'tool-result',
      step,
      toolCallId: call.id,
      toolName: call.name,
      output: result.output,
      isError: result.isError,
      durationMs,
    });
    return {
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
        ...(result.errorCode ? { errorCode: result.errorCode } : {}),
      },
    };
  };
  if (options.parallelToolCalls === false) {
    const out: ToolRun[] = [];
    for (const call of calls) out.push(await runOne(call));
    return out;
  }
  // Parallel execution; Promise.all keeps the model's order for the results.
  return Promise.all(calls.map(runOne));
}

/** Malformed JSON and executor bugs become error results the model can see and correct. */
async function executeSafely(tools: ToolExecutor, call: ToolCallPart, signal?: AbortSignal): Promise<ToolExecutionResult> {
  if (call.rawArguments !== undefined) {
    return {
      isError: true,
      errorCode: 'invalid_arguments_json',
      output: { error: 'invalid_arguments_json', message: 'The tool arguments were not valid JSON. Send a JSON object.' },
    };
  }
  try {
    return await tools.execute(call, { signal });
  } catch (error) {
    signal?.throwIfAborted();
    const appError = toAppError(error);
    return { isError: true, errorCode: appError.code, output: { error: appError.code, message: appError.message } };
  }
}
