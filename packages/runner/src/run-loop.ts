import { type AgentRunResult, runAgent, type ToolExecutor } from '@agentry/agent';
import type { FlowConfig } from '@agentry/config';
import { type Run, toolCallRecords } from '@agentry/db';
import { compileFlows, withFlowTools } from '@agentry/flows';
import { withAllowlist } from '@agentry/http-tools';
import type { Message } from '@agentry/llm';
import { agentOptions } from './agent-options.ts';
import { composeExecutors } from './compose-executors.ts';
import { flowTurnFor, runFlowInRun } from './flow-run.ts';
import { handoffExecutor, handoffReply, modelMessage } from './handoff-tool.ts';
import { retrieveBeforeAnswer } from './knowledge-auto.ts';
import { SEARCH_KNOWLEDGE } from './knowledge-sources.ts';
import { withSourceLedger } from './knowledge-tool.ts';
import { withFlowStartPermissions } from './permission-executor.ts';
import type { ProcessorContext } from './processor-context.ts';
import { createRecordingExecutor } from './recording-executor.ts';
import { doneResult, resumeHistory, waitingResult } from './resume-history.ts';
import { type RunKnowledge, runKnowledge } from './run-knowledge.ts';
import { type RunStart, setUpRun } from './run-setup.ts';
import { createRunTools, type RunTools } from './run-tools.ts';
import { runToolCache } from './tool-cache.ts';
import type { WriteBehind } from './write-behind.ts';

/**
 * Runs the claimed run's loop: builds what it needs from its start (model, HTTP, MCP and skill
 * tools; MCP sessions end with the run), settles what an earlier attempt left open, then runs the
 * agent from the stored transcript.
 */
export async function runLoop(
  ctx: ProcessorContext,
  run: Run,
  fence: number,
  controller: AbortController,
  start: RunStart,
  writes: WriteBehind,
): Promise<AgentRunResult> {
  const { deps } = ctx;
  const { tenant, messages: stored } = start.rows;
  // The tenant's own private-network allowlist (set by the operator) adds to the platform's.
  const egress = deps.egress && withAllowlist(deps.egress, tenant?.egressAllowlist ?? []);
  const toolCache = runToolCache(deps.toolCache, run.tenantId, ctx.log);
  const setup = setUpRun(start, run, deps.models, deps.fetch, deps.secretBox, egress, toolCache);
  // People's replies and notes (issue 21) read as what they are: written by a person.
  const history: Message[] = stored.map(modelMessage);
  const { agent } = setup;
  // Knowledge bases (issue 20): the source numbers come from the transcript, so a resume keeps them.
  const knowledge = runKnowledge(agent, deps.knowledge, run.tenantId, history);
  // MCP and skills (issue 9): HTTP, MCP and skill tools behind one executor; MCP sessions end with the run.
  const runTools = createRunTools({
    agent,
    model: setup.model,
    http: setup.http,
    toolContext: setup.toolContext,
    discoveredTools: setup.discoveredTools,
    run,
    lifetimeMs: agent.limits.runTimeoutMs,
    ...(egress ? { egress } : {}),
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
    ...(toolCache ? { toolCache } : {}),
    ...(deps.mcpStdioServers ? { stdioServers: deps.mcpStdioServers } : {}),
    publish: (event) => ctx.publish(run.id, event),
    ...(knowledge?.mode === 'tool' ? { knowledge: knowledge.executor } : {}),
    // A test conversation (issue 22): every tool answers from the case's fixtures; nothing is sent.
    ...(setup.conversation.test ? { fixtures: setup.conversation.test.fixtures } : {}),
  });
  try {
    return runTools.withSkills(
      await runWithTools(ctx, run, fence, controller, { setup, runTools, knowledge }, history, writes),
    );
  } finally {
    await runTools.close();
  }
}

async function runWithTools(
  ctx: ProcessorContext,
  run: Run,
  fence: number,
  controller: AbortController,
  parts: { setup: ReturnType<typeof setUpRun>; runTools: RunTools; knowledge: RunKnowledge | undefined },
  transcript: Message[],
  writes: WriteBehind,
): Promise<AgentRunResult> {
  const { deps, telemetry } = ctx;
  const { setup, runTools, knowledge } = parts;
  const { agent } = setup;
  const recorded = (inner: ToolExecutor) => {
    const recording = createRecordingExecutor({
      inner,
      db: deps.db,
      run,
      fence,
      writes,
      // A search only reads: one a crash left unsettled is run again.
      isIdempotent: (name) =>
        name === SEARCH_KNOWLEDGE || (agent.tools.find((t) => t.name === name)?.idempotent ?? false),
    });
    const traced = telemetry ? telemetry.traceTools(run, recording) : recording;
    return knowledge ? withSourceLedger(traced, knowledge.ledger) : traced;
  };
  // Issue 21: the built-in handoff_to_human tool, when the agent enables it.
  const handoff = handoffExecutor(ctx, run, agent, { test: setup.conversation.test != null });
  const agentTools = recorded(handoff ? composeExecutors(runTools.executor, handoff) : runTools.executor);
  // Flows (issue 19): offered to the model as flow__<name> tools; a flow's turns run without it.
  const flows = compileFlows(agent.config.flows ?? NO_FLOWS);
  const tools = withFlowStartPermissions(
    agent,
    withFlowTools(flows, agentTools),
    new Set(flows.map((flow) => flow.toolName)),
    async (id) => (await toolCallRecords(deps.db, run, [id]))[0]?.status === 'declined',
  );
  const history = await resumeHistory(ctx, run, writes, tools, controller.signal, agent, transcript);
  if (history === 'done') return doneResult();
  if (typeof history !== 'object' || !Array.isArray(history)) return waitingResult(history.pending);
  const plan = flowTurnFor(flows, history);
  // `auto` knowledge: the user's message is searched before the model's first call (not before a flow's turn).
  const context =
    knowledge?.mode === 'auto' && !plan
      ? await retrieveBeforeAnswer(ctx, {
          run,
          search: recorded(knowledge.executor),
          history,
          writes,
          signal: controller.signal,
        })
      : history;
  const inputs = {
    run,
    controller,
    setup,
    runTools,
    tools,
    history: context,
    writes,
    ...(knowledge ? { ledger: knowledge.ledger } : {}),
  };
  const options = agentOptions(ctx, inputs);
  const flowInputs = { ...inputs, agentTools, options };
  if (plan) return runFlowInRun(ctx, flowInputs, plan, history);
  const result = withHandoffReply(ctx, run, await runAgent(options), writes);
  // The model started a flow: the flow takes its first steps in the same run.
  const started =
    flows.length > 0 && result.status === 'completed'
      ? flowTurnFor(flows, [...context, ...result.messages])
      : undefined;
  return started ? runFlowInRun(ctx, flowInputs, started, [...context, ...result.messages], result) : result;
}

/**
 * A model turn that ended by handing the conversation to people: the visitor is told what the
 * agent says then (a person is coming, or nobody is available), stored with the final status.
 */
function withHandoffReply(
  ctx: ProcessorContext,
  run: Run,
  result: AgentRunResult,
  writes: WriteBehind,
): AgentRunResult {
  const told = handoffReply(result);
  if (!told) return result;
  const message: Message = { role: 'assistant', content: [{ type: 'text', text: told }] };
  writes.defer({ messages: [message] });
  void ctx.publish(run.id, { type: 'text-delta', step: Math.max(0, result.steps.length - 1), delta: told });
  return { ...result, messages: [...result.messages, message], finalText: told };
}

/** One empty list for agents without flows: the compiled-flows memo keys on the list. */
const NO_FLOWS: readonly FlowConfig[] = [];
