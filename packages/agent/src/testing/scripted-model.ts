import { setTimeout as sleep } from 'node:timers/promises';
import {
  emptyUsage,
  type FinishReason,
  type LanguageModel,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
  type ToolCallPart,
  type Usage,
} from '@agentry/llm';

/** One tool call of a scripted answer; `rawArguments` simulates malformed JSON. */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments?: unknown;
  rawArguments?: string;
}

/** One scripted model answer. */
export interface ScriptedTurn {
  /** A string is one delta; an array is streamed delta by delta. */
  text?: string | string[];
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: Partial<Usage>;
  finishReason?: FinishReason;
  /** Wait before the first event. */
  delayMs?: number;
  /** Wait between two events. */
  chunkDelayMs?: number;
  /** Stream the text, then never finish (until aborted, unless `ignoreAbort`). */
  hang?: boolean;
  /** Behave like a model that never looks at the abort signal. */
  ignoreAbort?: boolean;
  /** Fail the call with this error instead of answering. */
  error?: Error;
}

/** A fixed turn, or one computed from the request (the index counts calls from 0). */
export type ScriptedStep = ScriptedTurn | ((request: ModelRequest, index: number) => ScriptedTurn);

export interface ScriptedModel extends LanguageModel {
  /** Every request received (deep copies), in order. */
  readonly requests: ModelRequest[];
  /** Turns not yet used. */
  remaining(): number;
}

export interface ScriptedModelOptions {
  provider?: string;
  modelId?: string;
  /** Answers once the script is used up; without it an exhausted script throws. */
  fallback?: ScriptedStep;
}

/**
 * A `LanguageModel` that replays scripted answers as proper stream events and records the
 * requests it got: the way to drive the agent loop in tests without a server.
 *
 * @example
 * const model = createScriptedModel([
 *   { toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] },
 *   { text: ['The answer ', 'is 42.'] },
 * ]);
 * await runAgent({ model, tools, system: '', history, maxSteps: 4 });
 * model.requests[1]?.messages; // includes the tool result
 */
export function createScriptedModel(steps: ScriptedStep[], options: ScriptedModelOptions = {}): ScriptedModel {
  const queue = [...steps];
  const requests: ModelRequest[] = [];
  const modelId = options.modelId ?? 'scripted';

  function nextTurn(request: ModelRequest): ScriptedTurn {
    const index = requests.length;
    requests.push(structuredClone(request));
    const step = queue.shift() ?? options.fallback;
    if (!step) throw new Error(`Scripted model: no turn left for request ${index}`);
    return typeof step === 'function' ? step(request, index) : step;
  }

  async function* stream(request: ModelRequest, callOptions?: { signal?: AbortSignal }): AsyncGenerator<StreamEvent> {
    const turn = nextTurn(request);
    const signal = turn.ignoreAbort ? undefined : callOptions?.signal;
    if (turn.delayMs) await sleep(turn.delayMs, undefined, { signal });
    if (turn.error) throw turn.error;
    for (const event of turnEvents(turn, modelId, index(requests))) {
      if (turn.chunkDelayMs) await sleep(turn.chunkDelayMs, undefined, { signal });
      signal?.throwIfAborted();
      if (event.type === 'finish' && turn.hang) await waitForever(signal);
      yield event;
    }
  }

  async function generate(request: ModelRequest, callOptions?: { signal?: AbortSignal }): Promise<ModelResponse> {
    const turn = nextTurn(request);
    const signal = turn.ignoreAbort ? undefined : callOptions?.signal;
    if (turn.delayMs) await sleep(turn.delayMs, undefined, { signal });
    if (turn.error) throw turn.error;
    return responseOf(turn, modelId, index(requests));
  }

  return {
    provider: options.provider ?? 'scripted',
    modelId,
    requests,
    remaining: () => queue.length,
    stream,
    generate,
  };
}

function index(requests: ModelRequest[]): number {
  return requests.length - 1;
}

function waitForever(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

function toolCallsOf(turn: ScriptedTurn, call: number): ToolCallPart[] {
  return (turn.toolCalls ?? []).map((c, i) => ({
    type: 'tool_call',
    id: c.id ?? `call_${call}_${i}`,
    name: c.name,
    arguments: c.rawArguments === undefined ? (c.arguments ?? {}) : {},
    ...(c.rawArguments === undefined ? {} : { rawArguments: c.rawArguments }),
  }));
}

function responseOf(turn: ScriptedTurn, modelId: string, call: number): ModelResponse {
  const text = Array.isArray(turn.text) ? turn.text.join('') : (turn.text ?? '');
  const calls = toolCallsOf(turn, call);
  return {
    content: [
      ...(turn.reasoning ? [{ type: 'reasoning' as const, text: turn.reasoning }] : []),
      ...(text ? [{ type: 'text' as const, text }] : []),
      ...calls,
    ],
    finishReason: turn.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop'),
    usage: { ...emptyUsage(), inputTokens: 10, outputTokens: 5, ...turn.usage },
    responseId: `scripted_${call}`,
    modelId,
  };
}

function* turnEvents(turn: ScriptedTurn, modelId: string, call: number): Generator<StreamEvent> {
  if (turn.reasoning) yield { type: 'reasoning-delta', delta: turn.reasoning };
  const deltas = Array.isArray(turn.text) ? turn.text : turn.text ? [turn.text] : [];
  for (const delta of deltas) yield { type: 'text-delta', delta };
  const response = responseOf(turn, modelId, call);
  let index = 0;
  for (const part of response.content) {
    if (part.type !== 'tool_call') continue;
    yield { type: 'tool-call-start', index, id: part.id, name: part.name };
    yield { type: 'tool-call-delta', index, id: part.id, delta: part.rawArguments ?? JSON.stringify(part.arguments) };
    yield { type: 'tool-call-end', index, toolCall: part };
    index++;
  }
  yield { type: 'finish', response };
}
