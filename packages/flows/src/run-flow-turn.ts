import { type AgentEventBody, executeToolCall, type PendingInput, type ToolExecutor } from '@agentry/agent';
import type { FlowStepConfig } from '@agentry/config';
import { addUsage, emptyUsage, type LanguageModel, type Message, type ToolCallPart, type Usage } from '@agentry/llm';
import type { CompiledFlow } from './compile-flows.ts';
import { normalise } from './compile-flows.ts';
import type { FlowState, FlowStatus } from './flow-state.ts';
import { extractWithModel, type ModelReading } from './model-extraction.ts';
import { enumChoices, readSlotByPattern, type SlotReading, validateSlot, yesOrNo } from './slot-values.ts';
import { readPointer, renderArguments, renderText } from './templating.ts';

/** Steps one turn may pass through before the flow is stopped (a branch loop without an ask). */
export const MAX_TRANSITIONS = 100;

export interface FlowTurnDeps {
  /** The agent's tools, recorded like any tool call (same egress, approvals and records). */
  tools: ToolExecutor;
  /** Extracts slots that have no pattern, and answers that are not a plain yes or no. Absent: patterns only. */
  model?: LanguageModel;
  /** What `{{context.x}}` reads. */
  context: Record<string, unknown>;
  /** A tool step's call id: the same on every attempt of this turn, so a resumed turn replays the call. */
  callId(stepId: string, visit: number): string;
  /** The calls that wait for a person (approvals) and have no answer yet. */
  pendingInput?(calls: ToolCallPart[]): Promise<PendingInput[]>;
  emit(event: AgentEventBody): void | Promise<void>;
  /** The `step` number the turn's events carry. */
  step: number;
  signal: AbortSignal;
  toolTimeoutMs?: number;
}

/** What one flow turn did. */
export interface FlowTurnResult {
  state: FlowState;
  /** What the flow says, in order. */
  replies: string[];
  /** The tool steps' calls and results, as transcript messages. */
  messages: Message[];
  /** A tool step waits for a person: nothing of the turn is kept; it runs again once they answer. */
  pending?: PendingInput[];
  /** The user left the flow by changing the subject: the model answers their message. */
  handover: boolean;
  usage: Usage;
  toolCallCount: number;
}

interface Turn extends FlowTurnResult {
  flow: CompiledFlow;
  deps: FlowTurnDeps;
  visits: Map<string, number>;
}

/**
 * The state a flow starts in, with the slots already known (the model's arguments).
 *
 * @example
 * const state = startFlowState(flow, { start: '2026-12-01' });
 */
export function startFlowState(flow: CompiledFlow, slots: Record<string, unknown> = {}): FlowState {
  return { flow: flow.name, status: 'active', step: flow.order[0]!, slots, attempts: 0 };
}

/**
 * One turn of a flow: the user's answer to what the flow asked (if it asked), then the steps that
 * follow until the flow asks again, waits for a person or ends. Pure state machine over the state
 * it is given: the caller stores the returned state with the turn's messages.
 *
 * @example
 * const turn = await runFlowTurn(flow, state, 'yes', deps);
 * // turn.replies: what to say; turn.state: what to store
 */
export async function runFlowTurn(
  flow: CompiledFlow,
  start: FlowState,
  input: string | undefined,
  deps: FlowTurnDeps,
): Promise<FlowTurnResult> {
  const turn: Turn = {
    flow,
    deps,
    state: structuredClone(start),
    replies: [],
    messages: [],
    handover: false,
    usage: emptyUsage(),
    toolCallCount: 0,
    visits: new Map(),
  };
  // A stored active state always waits for an answer: one that does not was started just now.
  if (!start.awaiting) await event(turn, 'started');
  const go = input !== undefined && turn.state.awaiting ? await answer(turn, input) : true;
  if (go) await advance(turn);
  const { flow: _flow, deps: _deps, visits: _visits, ...result } = turn;
  return result;
}

/** Reads the user's answer to the open question; false when the turn ends with it. */
async function answer(turn: Turn, input: string): Promise<boolean> {
  const { flow, state } = turn;
  const step = flow.steps.get(state.step ?? '');
  if (!step) return true;
  const confirming = state.awaiting?.kind === 'confirm';
  const yes = confirming ? yesOrNo(input, labels(step)) : undefined;
  if (flow.allowExit && yes === undefined && flow.exitPhrases.has(normalise(input))) {
    await finish(turn, 'exited', flow.config.exit_message ?? 'OK, I stopped here.');
    return false;
  }
  if (confirming) return answerConfirm(turn, step, input, yes);
  const slot = state.awaiting?.kind === 'slot' ? state.awaiting.slot : (step.slot ?? '');
  const reading = readSlotByPattern(flow, slot, input) ?? (await readSlotByModel(turn, step, slot, input));
  if (reading === 'exit') return handOver(turn);
  if (!reading.ok) return reask(turn, step, reading.message);
  state.slots[slot] = reading.value;
  await event(turn, 'slot', { stepId: step.id, slot });
  settle(turn, nextOf(flow, step));
  return true;
}

async function answerConfirm(
  turn: Turn,
  step: FlowStepConfig,
  input: string,
  yes: boolean | undefined,
): Promise<boolean> {
  let said = yes;
  if (said === undefined && turn.deps.model) {
    const reading = await byModel(
      turn,
      step.prompt ?? '',
      'answer',
      'yes (true) or no (false)',
      { type: 'boolean' },
      input,
    );
    if (reading.kind === 'exit') return handOver(turn);
    if (reading.kind === 'value') said = reading.value === true;
  }
  if (said === undefined) return reask(turn, step, 'Please answer yes or no.');
  await event(turn, 'slot', { stepId: step.id });
  if (said) settle(turn, step.yes ?? nextOf(turn.flow, step));
  else if (step.no) settle(turn, step.no);
  else {
    await finish(turn, 'exited', turn.flow.config.exit_message ?? 'OK, I stopped here.');
    return false;
  }
  return true;
}

async function readSlotByModel(
  turn: Turn,
  step: FlowStepConfig,
  slot: string,
  input: string,
): Promise<SlotReading | 'exit'> {
  if (!turn.deps.model) return { ok: false, message: 'I could not understand that.' };
  const config = turn.flow.config.slots?.[slot];
  const reading = await byModel(turn, step.prompt ?? '', slot, config?.description, config?.schema ?? {}, input);
  if (reading.kind === 'exit') return 'exit';
  if (reading.kind === 'none') return { ok: false, message: reading.message };
  return validateSlot(turn.flow, slot, reading.value);
}

async function byModel(
  turn: Turn,
  question: string,
  name: string,
  description: string | undefined,
  schema: Record<string, unknown>,
  input: string,
): Promise<ModelReading> {
  const { reading, usage } = await extractWithModel({
    model: turn.deps.model!,
    question: renderText(turn.flow, question, turn.state, turn.deps.context),
    name,
    ...(description ? { description } : {}),
    schema,
    answer: input,
    allowExit: turn.flow.allowExit,
    signal: turn.deps.signal,
  });
  turn.usage = addUsage(turn.usage, usage);
  return reading;
}

/** Asks again with the reason, or gives up after `max_attempts` answers. */
async function reask(turn: Turn, step: FlowStepConfig, reason: string): Promise<boolean> {
  const { flow, state } = turn;
  state.attempts += 1;
  if (state.attempts >= flow.maxAttempts) {
    await finish(turn, 'failed', flow.config.failure_message ?? "Sorry, I could not get that. Let's leave it here.");
    return false;
  }
  say(turn, `${reason} ${renderText(flow, step.prompt ?? '', state, turn.deps.context)}`.trim());
  await event(turn, 'reask', {
    stepId: step.id,
    ...(state.awaiting?.kind === 'slot' ? { slot: state.awaiting.slot } : {}),
  });
  return false;
}

async function handOver(turn: Turn): Promise<boolean> {
  turn.handover = true;
  turn.state.status = 'exited';
  clearQuestion(turn.state);
  delete turn.state.step;
  await event(turn, 'exited');
  return false;
}

/** Runs steps until the flow asks, waits for a person or ends. */
async function advance(turn: Turn): Promise<void> {
  const { flow, state } = turn;
  for (let moves = 0; state.status === 'active'; moves++) {
    if (moves >= MAX_TRANSITIONS) {
      await finish(turn, 'failed', flow.config.failure_message ?? 'Sorry, something went wrong.');
      return;
    }
    const step = flow.steps.get(state.step ?? '');
    if (!step) {
      await finish(turn, 'ended');
      return;
    }
    if (!(await runStep(turn, step))) return;
  }
}

/** One step; false when the turn stops at it (a question, a person, the end). */
async function runStep(turn: Turn, step: FlowStepConfig): Promise<boolean> {
  const { flow, state, deps } = turn;
  switch (step.type) {
    case 'ask': {
      const slot = step.slot ?? '';
      if (state.slots[slot] !== undefined) return move(turn, nextOf(flow, step));
      return ask(turn, step, { kind: 'slot', slot }, enumChoices(flow, slot));
    }
    case 'confirm': {
      const { yes, no } = labels(step);
      return ask(turn, step, { kind: 'confirm' }, [yes, no]);
    }
    case 'reply':
      say(turn, renderText(flow, step.message ?? '', state, deps.context));
      return move(turn, nextOf(flow, step));
    case 'branch': {
      const values = { ...state.slots, result: state.result };
      const validators = flow.conditions.get(step.id) ?? [];
      const index = validators.findIndex((holds) => holds(values).ok);
      return move(turn, index >= 0 ? step.branches![index]!.goto : (step.else ?? nextOf(flow, step)));
    }
    case 'tool':
      return toolStep(turn, step);
    case 'handoff':
      await finish(turn, 'handoff', step.message ?? 'I am passing you to a colleague.');
      return false;
    default:
      await finish(turn, 'ended', step.message);
      return false;
  }
}

async function ask(
  turn: Turn,
  step: FlowStepConfig,
  awaiting: NonNullable<FlowState['awaiting']>,
  choices: string[] | undefined,
): Promise<boolean> {
  const { state } = turn;
  say(turn, renderText(turn.flow, step.prompt ?? '', state, turn.deps.context));
  state.awaiting = awaiting;
  if (choices) state.quick_replies = choices;
  await event(turn, 'step', { stepId: step.id, ...(choices ? { quickReplies: choices } : {}) });
  return false;
}

/** Calls the step's tool through the run's executor; a call waiting for a person stops the turn. */
async function toolStep(turn: Turn, step: FlowStepConfig): Promise<boolean> {
  const { flow, state, deps } = turn;
  const visit = (turn.visits.get(step.id) ?? 0) + 1;
  turn.visits.set(step.id, visit);
  const call: ToolCallPart = {
    type: 'tool_call',
    id: deps.callId(step.id, visit),
    name: step.tool ?? '',
    arguments: renderArguments(flow, step.arguments ?? {}, state, deps.context),
  };
  const pending = deps.pendingInput ? await deps.pendingInput([call]) : [];
  if (pending.length > 0) {
    turn.pending = pending;
    return false;
  }
  await event(turn, 'step', { stepId: step.id });
  await deps.emit({ type: 'tool-call', step: deps.step, toolCall: call });
  const started = performance.now();
  const result = await executeToolCall(deps.tools, call, deps.signal, deps.toolTimeoutMs);
  await deps.emit({
    type: 'tool-result',
    step: deps.step,
    toolCallId: call.id,
    toolName: call.name,
    output: result.output,
    isError: result.isError,
    ...(result.isError && result.errorCode ? { errorCode: result.errorCode } : {}),
    durationMs: performance.now() - started,
  });
  turn.toolCallCount += 1;
  turn.messages.push(
    { role: 'assistant', content: [call] },
    {
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          toolCallId: call.id,
          toolName: call.name,
          output: result.output,
          ...(result.isError ? { isError: true } : {}),
        },
      ],
    },
  );
  if (result.isError) {
    if (step.on_error) return move(turn, step.on_error);
    await finish(turn, 'failed', flow.config.failure_message ?? 'Sorry, that did not work.');
    return false;
  }
  state.result = result.output;
  for (const [slot, pointer] of Object.entries(step.save ?? {}))
    state.slots[slot] = readPointer(result.output, pointer);
  return move(turn, nextOf(flow, step));
}

function move(turn: Turn, to: string | undefined): boolean {
  settle(turn, to);
  return true;
}

/** Goes to a step, or ends the flow when there is none. */
function settle(turn: Turn, to: string | undefined): void {
  const { state } = turn;
  clearQuestion(state);
  if (to === undefined) {
    state.status = 'ended';
    delete state.step;
    return;
  }
  state.step = to;
}

async function finish(turn: Turn, status: FlowStatus, message?: string): Promise<void> {
  const { state } = turn;
  if (message) say(turn, renderText(turn.flow, message, state, turn.deps.context));
  const stepId = state.step;
  state.status = status;
  clearQuestion(state);
  delete state.step;
  await event(turn, status === 'active' ? 'step' : status, stepId ? { stepId } : {});
}

function clearQuestion(state: FlowState): void {
  delete state.awaiting;
  delete state.quick_replies;
  state.attempts = 0;
}

function say(turn: Turn, text: string): void {
  if (text.trim() !== '') turn.replies.push(text);
}

async function event(
  turn: Turn,
  action: Extract<AgentEventBody, { type: 'flow' }>['action'],
  extra: { stepId?: string; slot?: string; quickReplies?: string[] } = {},
): Promise<void> {
  await turn.deps.emit({ type: 'flow', step: turn.deps.step, flow: turn.flow.name, action, ...extra });
}

function nextOf(flow: CompiledFlow, step: FlowStepConfig): string | undefined {
  if (step.next) return step.next;
  return flow.order[flow.order.indexOf(step.id) + 1];
}

function labels(step: FlowStepConfig): { yes: string; no: string } {
  return { yes: step.yes_label ?? 'Yes', no: step.no_label ?? 'No' };
}
