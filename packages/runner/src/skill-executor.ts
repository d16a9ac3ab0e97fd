import {
  type AgentEvent,
  runAgent,
  type StepRecord,
  type ToolExecutionResult,
  type ToolExecutor,
} from '@agentry/agent';
import type { CompiledSkill } from '@agentry/config';
import { addUsage, emptyUsage, type LanguageModel, type Usage } from '@agentry/llm';
import { budgetTokens, countingModel } from './usage-budget.ts';

/** How one skill call went, kept with the parent's step record and returned in the result's meta. */
export interface SkillTrace {
  skill: string;
  status: string;
  reason?: string;
  steps: StepRecord[];
  usage: Usage;
  toolCallCount: number;
  durationMs: number;
}

/** What the parent run has left; a skill's sub-run may use no more. */
export interface SkillBudget {
  tokens: number;
  toolCalls: number;
}

/** A sub-run's event, published nested in the parent's stream (nested again for a skill's skill). */
export type SkillEvent = {
  type: 'skill-event';
  skill: string;
  toolCallId: string;
  event: AgentEvent | SkillEvent;
};

/** Where one skill call runs: what it may spend on skills it calls, where its events go, how deep it is. */
export interface SkillScope {
  /** What is left for the skills this sub-run calls: its own budget minus what it has used so far. */
  budget(): SkillBudget;
  onEvent?(event: SkillEvent): Promise<void> | void;
  /** 1 for a skill the agent calls, 2 for a skill a skill calls. */
  depth: number;
  /** `skill__a` (depth 1) or `skill__a:<call id>/skill__b`: keys the sub-run's tool calls within the run. */
  path: string;
}

/** The tools of one sub-run. */
export interface SkillTools {
  executor: ToolExecutor;
  /** The skills the sub-run may call, for their usage and traces. */
  nested?: SkillExecutor;
  /** Ends what the sub-run opened (its MCP sessions); called when the sub-run ends. Never throws. */
  close?(): Promise<void>;
}

export interface SkillExecutorOptions {
  skills: readonly CompiledSkill[];
  /** The parent's model: skills run on the same one. */
  model: LanguageModel;
  /** The tools of one sub-run (its HTTP and MCP tools, and the skills it may call). */
  toolsFor(skill: CompiledSkill, scope: SkillScope): SkillTools;
  budget(): SkillBudget;
  /** Receives the sub-run's events, to be published nested in the parent's stream. */
  onEvent?(event: SkillEvent): Promise<void> | void;
  traceId?: string;
  /** How deep these skills run (default 1: called by the agent). */
  depth?: number;
  /** The calling sub-run's path plus its call id, for skills a skill calls. */
  pathPrefix?: string;
}

export interface SkillExecutor extends ToolExecutor {
  /** Usage and tool calls of every skill call so far, nested skills included (the parent adds them to its own). */
  spent(): { usage: Usage; toolCalls: number };
  /** The trace of a skill call, by the parent's tool call id. */
  trace(toolCallId: string): SkillTrace | undefined;
}

/**
 * Skills as tools (seed 003 §7.8): `skill__<name>` with an `input` string runs the skill's own
 * loop (`runAgent`: its system prompt, action books, tools and limits) on the parent's model.
 * The sub-run may use at most what the parent has left of its token and tool-call budgets; its
 * usage and tool calls (with those of the skills it calls) are reported by `spent()` so the parent
 * counts them; its events go to `onEvent`; its steps come back in the result's `meta.skill` and
 * from `trace()`, a nested skill's trace on the call that ran it. Its tools (`toolsFor`) are
 * closed when the sub-run ends, so its MCP sessions do not outlive it. The final answer is the
 * tool output; a sub-run that ends otherwise (limit, failure) is an error result `skill_<status>`
 * with the reason and whatever answer it had.
 *
 * @example
 * const skills = createSkillExecutor({ skills: agent.skills, model, toolsFor, budget: () => left });
 */
export function createSkillExecutor(options: SkillExecutorOptions): SkillExecutor {
  const byName = new Map(options.skills.map((s) => [s.toolName, s]));
  const traces = new Map<string, SkillTrace>();
  const depth = options.depth ?? 1;
  let usage = emptyUsage();
  let toolCalls = 0;
  return {
    definitions: () => options.skills.map((s) => s.definition),
    spent: () => ({ usage, toolCalls }),
    trace: (id) => traces.get(id),
    async execute(call, callOptions): Promise<ToolExecutionResult> {
      const skill = byName.get(call.name);
      if (!skill) return errorResult('unknown_tool', `There is no skill named "${call.name}".`);
      const input = (call.arguments as { input?: unknown } | undefined)?.input;
      if (call.rawArguments !== undefined || typeof input !== 'string' || input.trim() === '') {
        return errorResult('invalid_arguments', 'Call a skill with {"input": "<the request, with every detail>"}.');
      }
      const left = options.budget();
      if (left.tokens <= 0 || left.toolCalls <= 0) {
        return errorResult('skill_budget_exhausted', 'The run has no token or tool-call budget left for a skill.');
      }
      const limits = skill.agent.limits;
      const maxTokens = Math.min(limits.maxTokens, left.tokens);
      const maxToolCalls = Math.min(limits.maxToolCalls, left.toolCalls);
      // The sub-run's own use so far, so a skill it calls sees what is left mid-step.
      let ownTokens = 0;
      let ownCalls = 0;
      const onEvent = options.onEvent;
      const forward = onEvent
        ? (event: AgentEvent | SkillEvent) =>
            onEvent({ type: 'skill-event', skill: skill.name, toolCallId: call.id, event })
        : undefined;
      const path = options.pathPrefix ? `${options.pathPrefix}/${skill.toolName}` : skill.toolName;
      const tools: SkillTools = options.toolsFor(skill, {
        budget: () => {
          const nested = tools.nested?.spent() ?? { usage: emptyUsage(), toolCalls: 0 };
          return {
            tokens: maxTokens - ownTokens - budgetTokens(nested.usage),
            toolCalls: maxToolCalls - ownCalls - nested.toolCalls,
          };
        },
        ...(forward ? { onEvent: forward } : {}),
        depth,
        path,
      });
      const counted: ToolExecutor = {
        definitions: () => tools.executor.definitions(),
        execute: (inner, innerOptions) => {
          ownCalls += 1;
          return tools.executor.execute(inner, innerOptions);
        },
      };
      let result: Awaited<ReturnType<typeof runAgent>>;
      try {
        result = await runAgent({
          model: countingModel(options.model, (u) => {
            ownTokens += budgetTokens(u);
          }),
          tools: counted,
          system: skill.agent.systemPrompt,
          history: [{ role: 'user', content: [{ type: 'text', text: input }] }],
          maxSteps: limits.maxSteps,
          maxToolCalls,
          maxTokens,
          timeoutMs: limits.runTimeoutMs,
          toolChoice: skill.agent.toolChoice,
          parallelToolCalls: skill.agent.parallelToolCalls,
          requireDoneTool: skill.agent.requireDoneTool,
          ...(options.traceId ? { traceId: options.traceId } : {}),
          ...(callOptions?.signal ? { signal: callOptions.signal } : {}),
          ...(forward ? { onEvent: (event: AgentEvent) => forward(event) } : {}),
        });
      } finally {
        await tools.close?.();
      }
      const nested = tools.nested?.spent() ?? { usage: emptyUsage(), toolCalls: 0 };
      const subUsage = addUsage(result.usage, nested.usage);
      const subToolCalls = result.toolCallCount + nested.toolCalls;
      usage = addUsage(usage, subUsage);
      toolCalls += subToolCalls;
      const trace: SkillTrace = {
        skill: skill.name,
        status: result.status,
        ...(result.reason ? { reason: result.reason } : {}),
        steps: tools.nested ? result.steps.map((step) => withNestedTraces(step, tools.nested!)) : result.steps,
        usage: subUsage,
        toolCallCount: subToolCalls,
        durationMs: Math.round(result.durationMs),
      };
      traces.set(call.id, trace);
      const meta = { skill: trace };
      if (result.status === 'completed') return { output: result.finalText ?? '', isError: false, meta };
      return errorResult(
        `skill_${result.status}`,
        `The skill "${skill.name}" stopped before finishing (${result.status}): ${result.reason ?? 'no reason given'}`,
        result.finalText ? { partial_answer: result.finalText } : {},
        meta,
      );
    },
  };
}

/** A sub-run's step with the traces of the skills it called on their calls. */
function withNestedTraces(step: StepRecord, nested: SkillExecutor): StepRecord {
  if (!step.toolCalls.some((c) => nested.trace(c.id))) return step;
  return {
    ...step,
    toolCalls: step.toolCalls.map((c) => {
      const trace = nested.trace(c.id);
      return trace ? { ...c, skill: trace } : c;
    }),
  };
}

function errorResult(
  code: string,
  message: string,
  details: Record<string, unknown> = {},
  meta?: Record<string, unknown>,
): ToolExecutionResult {
  return { output: { error: code, message, ...details }, isError: true, errorCode: code, ...(meta ? { meta } : {}) };
}
