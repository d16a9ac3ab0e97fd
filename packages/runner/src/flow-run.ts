import { createHash } from 'node:crypto';
import {
  type AgentRunOptions,
  type AgentRunResult,
  createDeadlineSignal,
  createEmitter,
  runAgent,
  type ToolExecutor,
} from '@agentry/agent';
import {
  type CompiledFlow,
  type FlowState,
  flowNameOf,
  flowToolName,
  latestFlowState,
  matchTrigger,
  runFlowTurn,
  startFlowState,
} from '@agentry/flows';
import { addUsage, emptyUsage, type Message, textOf } from '@agentry/llm';
import type { LoopInputs } from './agent-options.ts';
import { handOver } from './handoff-tool.ts';
import { unansweredInput } from './pending-input.ts';
import type { ProcessorContext } from './processor-context.ts';
import { doneResult } from './resume-history.ts';

/** Call ids of flow tool steps (`fs_…`) and of the stored flow states (`fl_…`). */
const STEP_CALL = 'fs_';
const STATE_CALL = 'fl_';

/** The flow turn a run takes instead of (or after) the model's turn. */
export interface FlowTurnPlan {
  flow: CompiledFlow;
  state: FlowState;
  /** The user's message; absent when a flow the model just started takes its first steps. */
  input?: string;
}

/**
 * Whether the run's next turn belongs to a flow: the user answers an active flow, their message
 * matches a trigger pattern (no model call), the model's turn ended by starting a flow that has not
 * spoken yet, or a flow's tool step that waited for a person was answered (the turn runs again; the
 * answered call replays from its record).
 *
 * @example
 * const plan = flowTurnFor(flows, history);
 */
export function flowTurnFor(flows: readonly CompiledFlow[], history: readonly Message[]): FlowTurnPlan | undefined {
  const last = history.at(-1);
  if (flows.length === 0 || !last) return undefined;
  if (last.role === 'user') return planFor(flows, history, textOf(last));
  if (last.role !== 'tool') return undefined;
  const results = last.content.filter((p) => p.type === 'tool_result');
  const started = results.some((p) => flowNameOf(p.toolName) !== undefined);
  const answeredStep = results.some((p) => p.toolCallId.startsWith(STEP_CALL));
  const state = latestFlowState(history);
  const flow = state && flows.find((f) => f.name === state.flow);
  if ((started || answeredStep) && flow && state.status === 'active' && !state.awaiting) return { flow, state };
  const user = history.findLast((m) => m.role === 'user');
  return answeredStep && user ? planFor(flows, history, textOf(user)) : undefined;
}

function planFor(flows: readonly CompiledFlow[], history: readonly Message[], input: string): FlowTurnPlan | undefined {
  const state = latestFlowState(history);
  const flow = state && flows.find((f) => f.name === state.flow);
  // A flow of an earlier version that this one no longer has ends quietly: the model answers.
  if (flow && state.status === 'active') return { flow, state, input };
  const triggered = matchTrigger(flows, input);
  return triggered ? { flow: triggered.flow, state: startFlowState(triggered.flow), input } : undefined;
}

/**
 * What a turn's call ids derive from: the run, its user message and how many states of this flow
 * followed it — the same when the turn runs again after a crash or a person's answer, so its tool
 * steps replay from their records instead of being sent again.
 */
function turnKey(runId: string, history: readonly Message[], flow: string): string {
  const user = history.findLastIndex((m) => m.role === 'user');
  const states = history
    .slice(user + 1)
    .filter(
      (m) => m.role === 'tool' && m.content.some((p) => p.type === 'tool_result' && p.toolName === flowToolName(flow)),
    ).length;
  return `${runId}:${user}:${flow}:${states}`;
}

function callId(prefix: string, ...parts: Array<string | number>): string {
  return `${prefix}${createHash('sha256').update(parts.join(':')).digest('hex').slice(0, 24)}`;
}

export interface FlowRunInputs extends LoopInputs {
  /** The run's tools without the flow tools (what a tool step may call). */
  agentTools: ToolExecutor;
  options: AgentRunOptions;
}

/**
 * Runs one flow turn inside the run and stores it: the tool steps' calls and results, the new flow
 * state (as the result of a `flow__<name>` call, so it is written with the run's status) and what
 * the flow said. When the user left the flow by changing the subject, the model answers their
 * message in the same run. `prior` is the model's turn that started the flow, merged in.
 *
 * @example
 * const result = await runFlowInRun(ctx, inputs, plan, history);
 */
export async function runFlowInRun(
  ctx: ProcessorContext,
  inputs: FlowRunInputs,
  plan: FlowTurnPlan,
  history: Message[],
  prior?: AgentRunResult,
): Promise<AgentRunResult> {
  const { run, options, writes, setup } = inputs;
  const started = performance.now();
  const emit = createEmitter(options.onEvent, options.traceId, prior ? 1_000_000 : 0);
  const step = run.steps.length + (prior?.steps.length ?? 0);
  if (!prior) {
    await emit({ type: 'run-started', provider: options.model.provider, modelId: options.model.modelId, tools: [] });
  }
  const key = turnKey(run.id, history, plan.flow.name);
  // The run's own deadline and cancellation hold for a flow's turn as for the model's.
  const deadline = createDeadlineSignal(inputs.controller.signal, options.timeoutMs, 'The run timed out');
  let turn: Awaited<ReturnType<typeof runFlowTurn>>;
  try {
    turn = await runFlowTurn(plan.flow, plan.state, plan.input, {
      tools: inputs.agentTools,
      model: options.model,
      context: setup.toolContext.context,
      callId: (stepId, visit) => callId(STEP_CALL, key, stepId, visit),
      pendingInput: (calls) => unansweredInput(ctx.deps.db, setup.agent, run, calls),
      emit,
      step,
      signal: deadline.signal,
    });
  } catch (error) {
    const stopped = deadline.stopStatus();
    if (!stopped) throw error;
    const reason =
      stopped === 'cancelled' ? 'The run was cancelled' : `The run did not finish within ${options.timeoutMs} ms`;
    const durationMs = performance.now() - started;
    if (stopped === 'cancelled') await emit({ type: 'run-cancelled', reason, usage: zero, durationMs });
    else await emit({ type: 'run-finished', status: stopped, reason, usage: zero, durationMs });
    return { ...(prior ?? doneResult()), status: stopped, reason, durationMs };
  } finally {
    deadline.dispose();
  }
  const merged = (part: Omit<AgentRunResult, 'durationMs'>): AgentRunResult => ({
    ...part,
    messages: [...(prior?.messages ?? []), ...part.messages],
    steps: [...(prior?.steps ?? []), ...part.steps],
    usage: addUsage(prior?.usage ?? zero, part.usage),
    toolCallCount: (prior?.toolCallCount ?? 0) + part.toolCallCount,
    durationMs: (prior?.durationMs ?? 0) + performance.now() - started,
  });
  const seen = new Set(history.flatMap((m) => m.content.flatMap((p) => (p.type === 'tool_call' ? [p.id] : []))));
  // Steps replayed from their records on a turn run again are in the transcript already.
  const stepMessages = turn.messages.filter((m) =>
    m.content.every(
      (p) => !((p.type === 'tool_call' && seen.has(p.id)) || (p.type === 'tool_result' && seen.has(p.toolCallId))),
    ),
  );
  if (turn.pending) {
    // The waiting call is stored as asked, so people can answer it; once they have, the turn runs
    // again from the state it started from and the answered call replays from its record.
    const asked: Message = {
      role: 'assistant',
      content: turn.pending.map((p) => ({
        type: 'tool_call',
        id: p.tool_call_id,
        name: p.name,
        arguments: p.arguments,
      })),
    };
    writes.defer({ messages: [...stepMessages, asked] });
    return merged({
      status: 'waiting',
      pending: turn.pending,
      messages: [...stepMessages, asked],
      steps: [],
      usage: turn.usage,
      toolCallCount: turn.toolCallCount,
    });
  }
  const stateCall = callId(STATE_CALL, key, 'state');
  const messages: Message[] = [
    ...stepMessages,
    {
      role: 'assistant',
      content: [
        {
          type: 'tool_call',
          id: stateCall,
          name: flowToolName(plan.flow.name),
          arguments: plan.input === undefined ? {} : { message: plan.input },
        },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool_result', toolCallId: stateCall, toolName: flowToolName(plan.flow.name), output: turn.state },
      ],
    },
  ];
  // A handoff step (issue 21) asks for a person; when nobody is available the visitor hears so instead.
  if (turn.state.status === 'handoff') {
    const handed = await handOver(ctx, run, setup.agent, {
      source: 'flow',
      reason: `The flow ${plan.flow.name} hands over`,
      summary: flowSummary(plan.flow.name, turn.state.slots),
      test: setup.conversation.test != null,
    });
    if (handed.status === 'unavailable') turn.replies = [handed.told_visitor];
  }
  const finalText = turn.replies.join('\n\n');
  if (finalText) {
    messages.push({ role: 'assistant', content: [{ type: 'text', text: finalText }] });
    await emit({ type: 'text-delta', step, delta: finalText });
  }
  writes.defer({ messages });
  if (turn.handover) {
    // The user changed the subject: the model answers their message, with the flow's turn before it.
    const answered = await runAgent({ ...options, history: [...history, ...messages] });
    return merged({
      ...answered,
      messages: [...messages, ...answered.messages],
      usage: addUsage(turn.usage, answered.usage),
      toolCallCount: turn.toolCallCount + answered.toolCallCount,
    });
  }
  const usage = addUsage(prior?.usage ?? zero, turn.usage);
  await emit({ type: 'run-finished', status: 'completed', usage, finalText, durationMs: performance.now() - started });
  return merged({
    status: 'completed',
    messages,
    steps: [],
    usage: turn.usage,
    toolCallCount: turn.toolCallCount,
    ...(finalText ? { finalText } : {}),
  });
}

const zero = emptyUsage();

/** What a person taking over from a flow reads first: the flow and the answers it collected. */
function flowSummary(flow: string, slots: Record<string, unknown>): string {
  const known = Object.entries(slots)
    .map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('; ');
  return known ? `The flow ${flow} collected ${known}` : `The flow ${flow} handed over`;
}
