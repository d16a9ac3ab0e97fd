import type { SerializedAppError } from '@agentry/errors';
import type { LanguageModel, Message, ToolCallPart, ToolChoice, Usage } from '@agentry/llm';
import type { AgentRunStatus, EventSink, PendingInput, StepRecord } from './events.ts';
import type { ToolExecutor } from './tool-executor.ts';

/** When and how the prompt history is summarised to stay inside the context window. */
export interface CompactionOptions {
  /** The model's context window in tokens. */
  contextWindow: number;
  /** Compact when the estimated prompt reaches this share of the window. Default 0.8. */
  thresholdRatio?: number;
  /** Messages at the end of the prompt kept verbatim (moved back so no tool result loses its call). Default 6. */
  keepRecentMessages?: number;
  /** System prompt of the summarisation call. */
  summaryPrompt?: string;
  /** Model that writes the summary; default the run's model. */
  model?: LanguageModel;
}

export interface AgentRunOptions {
  model: LanguageModel;
  tools: ToolExecutor;
  system: string;
  /** The conversation so far, ending with the new user message. */
  history: Message[];
  /** Most model calls in the run. */
  maxSteps: number;
  /** Most tool calls executed in the run. */
  maxToolCalls?: number;
  /** Token budget of the run: input + output tokens summed over all model calls. */
  maxTokens?: number;
  /** Wall-clock limit of the run in milliseconds. */
  timeoutMs?: number;
  /** Deadline of a single tool call; the loop turns it into a `tool_timeout` result. */
  toolTimeoutMs?: number;
  /** Consecutive tool error results after which the run ends (`tool_error_limit`). Default 5. */
  maxToolErrors?: number;
  /** The same call (name + canonical arguments) this many times is not executed again. Default 3. */
  doomLoopThreshold?: number;
  /** Passed to the model. 'none' also means the loop runs no tool. Default 'auto'. */
  toolChoice?: ToolChoice;
  /** Revert 'required' or a named tool to 'auto' after a step that called tools (avoids forced loops). Default true. */
  resetToolChoice?: boolean;
  /** false: the model is asked for one call at a time and the calls of a step run one after another. */
  parallelToolCalls?: boolean;
  /** The run ends only when the model calls the built-in `done` tool with its final answer. */
  requireDoneTool?: boolean;
  /** Name of the built-in done tool. Default 'done'. */
  doneToolName?: string;
  /** Nudges sent when the model answers without calling done, before the run ends (`done_not_called`). Default 2. */
  maxDoneNudges?: number;
  /** Tool name → how many of its latest results keep their full output in the prompt. */
  ephemeralTools?: Record<string, number>;
  compaction?: CompactionOptions;
  /** Ask the provider to cache the system prompt and tools (Anthropic prompt caching). */
  cacheHints?: boolean;
  temperature?: number;
  maxOutputTokens?: number;
  /** Put into every event. */
  traceId?: string;
  signal?: AbortSignal;
  onEvent?: EventSink;
  /**
   * Called with the model's message as soon as it is complete, before its tool calls run. The same
   * message object is the first of the step's messages passed to `onStep`.
   */
  onModelResponse?: (message: Message, step: number) => Promise<void>;
  /**
   * Which of a step's tool calls wait for a person (client tools, approvals) and have no answer
   * yet. When any do, the loop runs none of the step's calls and ends with status `waiting`; the
   * caller resumes later with the answers recorded.
   */
  pendingInput?: (calls: ToolCallPart[]) => Promise<PendingInput[]>;
  /** Called after every step with the messages it produced: the place to persist a checkpoint. */
  onStep?: (messages: Message[], step: StepRecord) => Promise<void>;
}

export interface AgentRunResult {
  status: AgentRunStatus;
  reason?: string;
  /** Messages produced by this run, in order (the full transcript: compaction and ephemeral outputs only change prompts). */
  messages: Message[];
  steps: StepRecord[];
  /** All model calls of the run, summarisation included. */
  usage: Usage;
  toolCallCount: number;
  /** The done tool's answer, or the text of the last assistant message. */
  finalText?: string;
  durationMs: number;
  error?: SerializedAppError;
  /** With status `waiting`: the calls that wait for a person. */
  pending?: PendingInput[];
}
