import type { AgentRunResult, StepRecord, ToolExecutor } from '@agentry/agent';
import { withToolFixtures } from '@agentry/agent-tests';
import { type CompiledAgent, type CompiledSkill, MAX_SKILL_DEPTH, type ToolContext } from '@agentry/config';
import { createHttpToolExecutor, type EgressPolicy, type HttpToolExecutorOptions } from '@agentry/http-tools';
import { addUsage, emptyUsage, type LanguageModel, type Usage } from '@agentry/llm';
import { createMcpToolExecutor, readDiscoveredTools, type StdioServerDefinitions } from '@agentry/mcp';
import { composeExecutors } from './compose-executors.ts';
import { withPermissions } from './permission-executor.ts';
import { idempotencyKeyFor } from './recording-executor.ts';
import { createSkillExecutor, type SkillEvent, type SkillScope, type SkillTools } from './skill-executor.ts';
import { budgetTokens, countingModel, subtractUsage } from './usage-budget.ts';

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
  /** The run's tenant part of the tool result cache: skills' cached tools use it as the agent's do. */
  toolCache?: HttpToolExecutorOptions['cache'];
  /** The platform operator's stdio MCP servers (`MCP_STDIO_SERVERS`). */
  stdioServers?: StdioServerDefinitions;
  /** How long MCP sessions may stay open: the run's remaining time. */
  lifetimeMs: number;
  /** Publishes a skill's events into the parent run's stream. */
  publish(event: SkillEvent): Promise<void>;
  /** The built-in `search_knowledge` tool (agents with `knowledge` in `tool` mode). */
  knowledge?: ToolExecutor;
  /** A test conversation's fixtures (issue 22): HTTP, MCP and skills' tools answer from them. */
  fixtures?: readonly unknown[];
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
 * HTTP tools, the MCP tools of the servers it names (its own sessions, closed when the sub-run
 * ends) and the skills it may call (at most `MAX_SKILL_DEPTH` deep), bounded by what the parent
 * has left of its budgets.
 *
 * @example
 * const tools = createRunTools({ ...setup, run, lifetimeMs, publish });
 * try { await runAgent({ tools: tools.executor, ... }); } finally { await tools.close(); }
 */
export function createRunTools(options: RunToolsOptions): RunTools {
  const { agent } = options;
  const discovered = readDiscoveredTools(options.discoveredTools);
  const { fixtures } = options;
  const fixtured = (executor: ToolExecutor): ToolExecutor =>
    fixtures ? withToolFixtures(executor, fixtures) : executor;
  const started = Date.now();
  const mcpFor = (servers: CompiledAgent['mcpServers'], lifetimeMs: number) =>
    createMcpToolExecutor({
      servers,
      discovered,
      secrets: options.toolContext.secrets,
      lifetimeMs,
      ...(options.egress ? { egress: options.egress } : {}),
      ...(options.stdioServers ? { stdioServers: options.stdioServers } : {}),
    });
  const mcp = mcpFor(agent.mcpServers, options.lifetimeMs);
  const toolsFor = (skill: CompiledSkill, scope: SkillScope): SkillTools => {
    const http = createHttpToolExecutor({
      agent: skill.agent,
      context: options.toolContext,
      idempotencyKey: (call) => idempotencyKeyFor(options.run.id, `${scope.path}:${call.id}`),
      ...(options.egress ? { egress: options.egress } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.toolCache ? { cache: options.toolCache } : {}),
    });
    // The sub-run's own sessions: they end with it, never with the parent's.
    const remaining = Math.max(1000, options.lifetimeMs - (Date.now() - started));
    const skillMcp =
      skill.agent.mcpServers.length > 0
        ? mcpFor(skill.agent.mcpServers, Math.min(skill.agent.limits.runTimeoutMs, remaining))
        : undefined;
    const nested =
      skill.skills.length > 0 && scope.depth < MAX_SKILL_DEPTH
        ? createSkillExecutor({
            skills: skill.skills,
            model: options.model,
            toolsFor,
            budget: scope.budget,
            ...(scope.onEvent ? { onEvent: scope.onEvent } : {}),
            traceId: options.run.traceId,
            depth: scope.depth + 1,
            pathPrefix: scope.path,
          })
        : undefined;
    // The skill's own tools answer from a test's fixtures; nested skills are sub-runs, played for real.
    const own = fixtured(skillMcp ? composeExecutors(http, skillMcp) : http);
    return {
      executor: nested ? composeExecutors(own, nested) : own,
      ...(nested ? { nested } : {}),
      close: async () => {
        await skillMcp?.close();
      },
    };
  };
  let parentTokens = 0;
  let parentToolCalls = 0;
  const skills = createSkillExecutor({
    skills: agent.skills,
    model: options.model,
    toolsFor,
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
    // One place for deny rules, whichever executor would have run the call.
    executor: withPermissions(
      agent,
      composeExecutors(
        fixtured(composeExecutors(options.http, mcp)),
        ...(agent.skills.length > 0 ? [skills] : []),
        ...(options.knowledge ? [options.knowledge] : []),
      ),
    ),
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
