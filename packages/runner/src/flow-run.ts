import { createHash } from 'node:crypto';
import { type AgentRunOptions, type AgentRunResult, createEmitter, runAgent, type ToolExecutor } from '@agentry/agent';
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
import { addUsage, type Message, textOf } from '@agentry/llm';
import type { LoopInputs } from './agent-options.ts';
import { unansweredInput } from './pending-input.ts';
import type { ProcessorContext } from './processor-context.ts';

/** The flow turn a run takes instead of (or after) the model's turn. */
export interface FlowTurnPlan {
  flow: CompiledFlow;
  state: FlowState;
  /** The user's message; absent when a flow the model just started takes its first steps. */
  input?: string;
}

/**
 * Whether the run's next turn belongs to a flow: the user answers an active flow, their message
 * matches a trigger pattern (no model call), or the model's turn ended by starting a flow that has
 * not spoken yet.
 *
 * @example
 * const plan = flowTurnFor(flows, history);
 */
export function flowTurnFor(flows: readonly CompiledFlow[], history: readonly Message[]): FlowTurnPlan | undefined {
  if (flows.length === 0) return undefined;
  const last = history.at(-1);
  const state = latestFlowState(history);
  const flow = state && flows.find((f) => f.name === state.flow);
  if (last?.role === 'tool') {
    const fresh = last.content.some((p) => p.type === 'tool_result' && flowNameOf(p.toolName) !== undefined);
    return fresh && flow && state.status === 'active' && !state.awaiting ? { flow, state } : undefined;
  }
  if (last?.role !== 'user') return undefined;
  const input = textOf(last);
  // A flow of an earlier version that this one no longer has ends quietly: the model answers.
  if (flow && state.status === 'active') return { flow, state, input };
  const triggered = matchTrigger(flows, input);
  return triggered ? { flow: triggered.flow, state: startFlowState(triggered.flow), input } : undefined;
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
  const key = (...parts: Array<string | number>) =>
    `fl_${createHash('sha256')
      .update([run.id, history.length, plan.flow.name, ...parts].join(':'))
      .digest('hex')
      .slice(0, 24)}`;
  const turn = await runFlowTurn(plan.flow, plan.state, plan.input, {
    tools: inputs.agentTools,
    model: options.model,
    context: setup.toolContext.context,
    callId: (stepId, visit) => key(stepId, visit),
    pendingInput: (calls) => unansweredInput(ctx.deps.db, setup.agent, run, calls),
    emit,
    step,
    signal: inputs.controller.signal,
  });
  const merged = (part: Omit<AgentRunResult, 'durationMs'>): AgentRunResult => ({
    ...part,
    messages: [...(prior?.messages ?? []), ...part.messages],
    steps: [...(prior?.steps ?? []), ...part.steps],
    usage: addUsage(prior?.usage ?? zero, part.usage),
    toolCallCount: (prior?.toolCallCount ?? 0) + part.toolCallCount,
    durationMs: (prior?.durationMs ?? 0) + performance.now() - started,
  });
  // Nothing of the turn is kept: it runs again, from the same state, once a person has answered.
  if (turn.pending) {
    return merged({
      status: 'waiting',
      pending: turn.pending,
      messages: [],
      steps: [],
      usage: turn.usage,
      toolCallCount: 0,
    });
  }
  const stateCall = key('state');
  const messages: Message[] = [
    ...turn.messages,
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

const zero = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
