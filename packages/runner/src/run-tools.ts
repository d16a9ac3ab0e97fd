import type { AgentEvent, AgentRunResult, StepRecord, ToolExecutor } from '@agentry/agent';
import type { CompiledAgent, ToolContext } from '@agentry/config';
import { createHttpToolExecutor, type EgressPolicy } from '@agentry/http-tools';
import { addUsage, emptyUsage, type LanguageModel, type Usage } from '@agentry/llm';
import { createMcpToolExecutor, readDiscoveredTools } from '@agentry/mcp';
import { composeExecutors } from './compose-executors.ts';
import { idempotencyKeyFor } from './recording-executor.ts';
import { createSkillExecutor } from './skill-executor.ts';

export interface RunToolsOptions {
  agent: CompiledAgent;
  model: LanguageModel;
  /** The agent's HTTP tools (from `setUpRun`). */
  http: ToolExecutor;
  toolContext: ToolContext;
  /** `agent_versions.discovered_tools` of the run's version. */
  discoveredTools: unknown;
  run: { id: string; toolCallCount: number; traceId: string };
  egress?: EgressPolicy;
  fetch?: typeof fetch;
  /** How long MCP sessions may stay open: the run's remaining time. */
  lifetimeMs: number;
  /** Publishes a skill's events into the parent run's stream. */
  publish(event: { type: 'skill-event'; skill: string; toolCallId: string; event: AgentEvent }): Promise<void>;
}

/** Every tool of a run behind one executor, plus the bookkeeping skills need. */
export interface RunTools {
  executor: ToolExecutor;
  /** The parent's model, counting its usage as it goes, so a skill sees what is left of the budget mid-step. */
  parentModel: LanguageModel;
  /** The step record as stored: skill calls carry their trace. */
  stepRecord(step: StepRecord): StepRecord;
  /** Skill usage not yet added to a checkpoint (call once per step). */
  takeSkillUsage(): Usage;
  /** The run's result with the skills' usage and tool calls added. */
  withSkills(result: AgentRunResult): AgentRunResult;
  /** Ends the MCP sessions; never throws. */
  close(): Promise<void>;
}

/**
 * The tools of one run: HTTP tools, the MCP tools stored at publish (one session per server,
 * closed by `close()`), and skills — sub-runs on the same model whose tools are the skill's own
 * HTTP tools, bounded by what the parent has left of its budgets.
 *
 * @example
 * const tools = createRunTools({ ...setup, run, lifetimeMs, publish });
 * try { await runAgent({ tools: tools.executor, ... }); } finally { await tools.close(); }
 */
export function createRunTools(options: RunToolsOptions): RunTools {
  const { agent } = options;
  const mcp = createMcpToolExecutor({
    servers: agent.mcpServers,
    discovered: readDiscoveredTools(options.discoveredTools),
    secrets: options.toolContext.secrets,
    lifetimeMs: options.lifetimeMs,
    ...(options.egress ? { egress: options.egress } : {}),
  });
  let parentTokens = 0;
  let parentToolCalls = 0;
  const skills = createSkillExecutor({
    skills: agent.skills,
    model: options.model,
    toolsFor: (skill) =>
      createHttpToolExecutor({
        agent: skill.agent,
        context: options.toolContext,
        idempotencyKey: (call) => idempotencyKeyFor(options.run.id, `${skill.toolName}:${call.id}`),
        ...(options.egress ? { egress: options.egress } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    budget: () => {
      const spent = skills.spent();
      return {
        tokens: agent.limits.maxTokens - parentTokens - budgetTokens(spent.usage),
        toolCalls: agent.limits.maxToolCalls - options.run.toolCallCount - parentToolCalls - spent.toolCalls,
      };
    },
    onEvent: (event) => options.publish(event),
    traceId: options.run.traceId,
  });
  let checkpointed = emptyUsage();
  const parentModel = countingModel(options.model, (usage) => {
    parentTokens += budgetTokens(usage);
  });
  return {
    parentModel,
    executor:
      agent.skills.length > 0 ? composeExecutors(options.http, mcp, skills) : composeExecutors(options.http, mcp),
    stepRecord(step) {
      parentToolCalls += step.executedToolCalls;
      if (!step.toolCalls.some((call) => skills.trace(call.id))) return step;
      return {
        ...step,
        toolCalls: step.toolCalls.map((call) => {
          const trace = skills.trace(call.id);
          return trace ? { ...call, skill: trace } : call;
        }),
      };
    },
    takeSkillUsage() {
      const total = skills.spent().usage;
      const fresh = subtractUsage(total, checkpointed);
      checkpointed = total;
      return fresh;
    },
    withSkills(result) {
      const spent = skills.spent();
      if (spent.toolCalls === 0 && budgetTokens(spent.usage) === 0) return result;
      return {
        ...result,
        usage: addUsage(result.usage, spent.usage),
        toolCallCount: result.toolCallCount + spent.toolCalls,
      };
    },
    close: () => mcp.close(),
  };
}

/** The same model, reporting the usage of every answer (generated or streamed) as it arrives. */
function countingModel(model: LanguageModel, onUsage: (usage: Usage) => void): LanguageModel {
  return {
    provider: model.provider,
    modelId: model.modelId,
    async generate(request, callOptions) {
      const response = await model.generate(request, callOptions);
      onUsage(response.usage);
      return response;
    },
    async *stream(request, callOptions) {
      for await (const event of model.stream(request, callOptions)) {
        if (event.type === 'finish') onUsage(event.response.usage);
        yield event;
      }
    },
  };
}

/** Tokens counted against a budget, as the agent loop counts them. */
function budgetTokens(usage: Usage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens;
}

function subtractUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens - b.inputTokens,
    outputTokens: a.outputTokens - b.outputTokens,
    cacheReadTokens: a.cacheReadTokens - b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens - b.cacheWriteTokens,
  };
}
