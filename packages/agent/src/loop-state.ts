import { emptyUsage, type Message, type ToolChoice, type ToolDefinition, type Usage } from '@agentry/llm';
import { doneToolDefinition } from './done-tool.ts';
import { DoomLoopDetector } from './doom-loop.ts';
import { createEmitter, type Emit } from './emitter.ts';
import type { AgentRunStatus, PendingInput, StepRecord } from './events.ts';
import { PromptState } from './prompt-state.ts';
import type { AgentRunOptions } from './run-options.ts';

/** How a run ends when it ends normally (not by an exception). */
export interface Stop {
  status: AgentRunStatus;
  reason?: string;
}

/** Everything one run keeps between steps. */
export interface LoopState {
  options: AgentRunOptions;
  signal: AbortSignal;
  emit: Emit;
  startedAt: number;
  /** Offered to the model: the executor's tools, plus done when required. */
  definitions: ToolDefinition[];
  /** Names the executor can run. */
  toolNames: ReadonlySet<string>;
  doneToolName?: string;
  prompt: PromptState;
  /** The stored transcript of this run: never shortened. */
  produced: Message[];
  steps: StepRecord[];
  usage: Usage;
  toolCallCount: number;
  consecutiveToolErrors: number;
  doneNudges: number;
  toolChoice: ToolChoice;
  doom: DoomLoopDetector;
  finalText?: string;
  /** Set when the run pauses for a person. */
  pending?: PendingInput[];
}

/**
 * The state at the start of a run, with defaults applied.
 *
 * @example
 * const state = createLoopState(options, run.signal);
 */
export function createLoopState(options: AgentRunOptions, signal: AbortSignal): LoopState {
  const executorTools = options.tools.definitions();
  const doneToolName = options.requireDoneTool ? (options.doneToolName ?? 'done') : undefined;
  return {
    options,
    signal,
    emit: createEmitter(options.onEvent, options.traceId),
    startedAt: performance.now(),
    definitions: doneToolName ? [...executorTools, doneToolDefinition(doneToolName)] : executorTools,
    toolNames: new Set(executorTools.map((tool) => tool.name)),
    ...(doneToolName ? { doneToolName } : {}),
    prompt: new PromptState(options.history),
    produced: [],
    steps: [],
    usage: emptyUsage(),
    toolCallCount: 0,
    consecutiveToolErrors: 0,
    doneNudges: 0,
    toolChoice: options.toolChoice ?? 'auto',
    doom: new DoomLoopDetector(options.doomLoopThreshold ?? 3),
  };
}

/** Tokens counted against `maxTokens`: every prompt token (cached or not) plus output. */
export function budgetTokens(usage: Usage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens;
}

export function tokenBudgetExceeded(state: LoopState): boolean {
  return state.options.maxTokens !== undefined && budgetTokens(state.usage) >= state.options.maxTokens;
}
