import {
  type AgentEvent,
  runAgent,
  type StepRecord,
  type ToolExecutionResult,
  type ToolExecutor,
} from '@agentry/agent';
import type { CompiledSkill } from '@agentry/config';
import { addUsage, emptyUsage, type LanguageModel, type Usage } from '@agentry/llm';

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

export interface SkillExecutorOptions {
  skills: readonly CompiledSkill[];
  /** The parent's model: skills run on the same one. */
  model: LanguageModel;
  /** The executor of a skill's own tools. */
  toolsFor(skill: CompiledSkill): ToolExecutor;
  budget(): SkillBudget;
  /** Receives the sub-run's events, to be published nested in the parent's stream. */
  onEvent?(event: { type: 'skill-event'; skill: string; toolCallId: string; event: AgentEvent }): Promise<void> | void;
  traceId?: string;
}

export interface SkillExecutor extends ToolExecutor {
  /** Usage and tool calls of every skill call so far (the parent adds them to its own). */
  spent(): { usage: Usage; toolCalls: number };
  /** The trace of a skill call, by the parent's tool call id. */
  trace(toolCallId: string): SkillTrace | undefined;
}

/**
 * Skills as tools (seed 003 §7.8): `skill__<name>` with an `input` string runs the skill's own
 * loop (`runAgent`: its system prompt, action books, tools and limits) on the parent's model.
 * The sub-run may use at most what the parent has left of its token and tool-call budgets; its
 * usage and tool calls are reported by `spent()` so the parent counts them; its events go to
 * `onEvent`; its steps come back in the result's `meta.skill` and from `trace()`. The final answer
 * is the tool output; a sub-run that ends otherwise (limit, failure) is an error result
 * `skill_<status>` with the reason and whatever answer it had.
 *
 * @example
 * const skills = createSkillExecutor({ skills: agent.skills, model, toolsFor, budget: () => left });
 */
export function createSkillExecutor(options: SkillExecutorOptions): SkillExecutor {
  const byName = new Map(options.skills.map((s) => [s.toolName, s]));
  const traces = new Map<string, SkillTrace>();
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
      const result = await runAgent({
        model: options.model,
        tools: options.toolsFor(skill),
        system: skill.agent.systemPrompt,
        history: [{ role: 'user', content: [{ type: 'text', text: input }] }],
        maxSteps: limits.maxSteps,
        maxToolCalls: Math.min(limits.maxToolCalls, left.toolCalls),
        maxTokens: Math.min(limits.maxTokens, left.tokens),
        timeoutMs: limits.runTimeoutMs,
        toolChoice: skill.agent.toolChoice,
        parallelToolCalls: skill.agent.parallelToolCalls,
        requireDoneTool: skill.agent.requireDoneTool,
        ...(options.traceId ? { traceId: options.traceId } : {}),
        ...(callOptions?.signal ? { signal: callOptions.signal } : {}),
        ...(options.onEvent
          ? {
              onEvent: (event: AgentEvent) =>
                options.onEvent?.({ type: 'skill-event', skill: skill.name, toolCallId: call.id, event }),
            }
          : {}),
      });
      usage = addUsage(usage, result.usage);
      toolCalls += result.toolCallCount;
      const trace: SkillTrace = {
        skill: skill.name,
        status: result.status,
        ...(result.reason ? { reason: result.reason } : {}),
        steps: result.steps,
        usage: result.usage,
        toolCallCount: result.toolCallCount,
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

function errorResult(
  code: string,
  message: string,
  details: Record<string, unknown> = {},
  meta?: Record<string, unknown>,
): ToolExecutionResult {
  return { output: { error: code, message, ...details }, isError: true, errorCode: code, ...(meta ? { meta } : {}) };
}
