import type { AgentRunOptions, ToolExecutor } from '@agentry/agent';
import type { Run } from '@agentry/db';
import { addUsage, type Message, type SourceCitation, textOf, type Usage } from '@agentry/llm';
import { citationsFor, withCitations } from './knowledge-citations.ts';
import type { SourceLedger } from './knowledge-sources.ts';
import { unansweredInput } from './pending-input.ts';
import type { ProcessorContext } from './processor-context.ts';
import { contextWindowFor, type setUpRun } from './run-setup.ts';
import type { RunTools } from './run-tools.ts';
import { stopAttempt } from './stop-reasons.ts';
import type { WriteBehind } from './write-behind.ts';

/** What an attempt runs the loop with: its run, fence and stop controller, setup, tools and writes. */
export interface LoopInputs {
  run: Run;
  controller: AbortController;
  setup: ReturnType<typeof setUpRun>;
  runTools: RunTools;
  /** The run's tools behind the recording executor (and spans). */
  tools: ToolExecutor;
  history: Message[];
  writes: WriteBehind;
  /** The numbered knowledge sources (agents with `knowledge`): the final answer's citations. */
  ledger?: SourceLedger;
}

/**
 * The loop's options for one attempt: the agent's limits less what earlier attempts spent, its
 * events (published, observed), and the writes of each step — the model's message put off until
 * its first tool call or the step's checkpoint, the step's checkpoint committed while the next
 * model call runs, the final answer left to travel with the final status. A processor shutting
 * down stops the loop at a checkpoint.
 */
export function agentOptions(ctx: ProcessorContext, inputs: LoopInputs): AgentRunOptions {
  const { deps, telemetry } = ctx;
  const { run, controller, setup, runTools, tools, history, writes } = inputs;
  const { signal } = controller;
  const { agent } = setup;
  let steps = run.steps;
  let usage: Usage = run.usage;
  let stored: Message | undefined;
  return {
    model: telemetry ? telemetry.traceModel(run, runTools.parentModel) : runTools.parentModel,
    tools,
    system: setup.system,
    history,
    maxSteps: Math.max(1, agent.limits.maxSteps - run.steps.length),
    maxToolCalls: Math.max(1, agent.limits.maxToolCalls - run.toolCallCount),
    maxTokens: agent.limits.maxTokens,
    timeoutMs: Math.max(1000, agent.limits.runTimeoutMs - (Date.now() - (run.startedAt ?? run.createdAt).getTime())),
    toolChoice: agent.toolChoice,
    parallelToolCalls: agent.parallelToolCalls,
    requireDoneTool: agent.requireDoneTool,
    ephemeralTools: Object.fromEntries(
      agent.tools.flatMap((t) => (t.response.ephemeral ? [[t.name, t.response.ephemeral]] : [])),
    ),
    compaction: { contextWindow: contextWindowFor(setup.provider) },
    cacheHints: setup.provider === 'anthropic',
    ...(agent.model.temperature !== undefined ? { temperature: agent.model.temperature } : {}),
    ...(agent.model.maxOutputTokens !== undefined ? { maxOutputTokens: agent.model.maxOutputTokens } : {}),
    traceId: run.traceId,
    signal,
    onEvent:
      deps.events || telemetry
        ? (event) => {
            telemetry?.observe(run, event);
            // `waiting` goes out once the run is parked (`pauseForInput`): a client that answers as
            // soon as it sees the prompt must find the run waiting, not still running.
            if (event.type === 'waiting') return;
            // Not awaited: the loop does not wait a round trip (nor a delta's merge) per event.
            // `ctx.publish` keeps them in order with the processor's own, and the final status is
            // published (and awaited) after them.
            void ctx.publish(run.id, event);
          }
        : undefined,
    pendingInput: (calls) => unansweredInput(deps.db, agent, run, calls),
    onModelResponse: async (message) => {
      stored = message;
      const cited = inputs.ledger ? answerCitations(message, inputs.ledger) : [];
      if (cited.length > 0) {
        // Ahead of the run's final status, on the one ordered writer: clients show the sources with the answer.
        void ctx.publish(run.id, { type: 'citations', citations: cited });
      }
      // Put off: it travels with the first tool call's start record (committed before the call is
      // sent) or with the step's checkpoint.
      writes.defer({ messages: [withCitations(message, cited)] });
    },
    onStep: async (messages, step) => {
      steps = [...steps, { ...runTools.stepRecord(step), provider: setup.provider, model: setup.model.modelId }];
      usage = addUsage(addUsage(usage, step.usage), runTools.takeSkillUsage());
      const rest = messages[0] === stored ? messages.slice(1) : messages;
      writes.defer({ messages: rest, update: { steps, usage } });
      // The run ends right after this step: it travels with the final status.
      if (isFinalAnswer(messages)) return;
      // Committed while the loop goes on to the next model call, which has no side effect: what
      // acts next — a tool call, the final status — waits for this commit (the write-behind
      // keeps their order), and a failed commit fails the attempt there.
      const committed = ctx.checkpoint(run, writes);
      committed.catch(() => {});
      // A worker shutting down stops here, at a checkpoint; the next worker resumes from it.
      if (ctx.attempts.stopping) {
        await committed.catch(() => {});
        stopAttempt(controller, 'shutdown');
      }
    },
  };
}

/** The citations of an answer (a message without tool calls); none for a step that calls tools. */
function answerCitations(message: Message, ledger: SourceLedger): SourceCitation[] {
  if (message.content.some((p) => p.type === 'tool_call')) return [];
  return citationsFor(textOf(message), ledger);
}

/** A step that only answered (no tool calls, no nudge to follow): the run ends with it. */
function isFinalAnswer(messages: Message[]): boolean {
  return (
    messages.length === 1 &&
    messages[0]!.role === 'assistant' &&
    !messages[0]!.content.some((p) => p.type === 'tool_call')
  );
}
