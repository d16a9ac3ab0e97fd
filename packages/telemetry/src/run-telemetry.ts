import type { AgentEvent, ToolExecutor } from '@agentry/agent';
import type { LanguageModel, Usage } from '@agentry/llm';
import type { AgentryMetrics } from './metrics.ts';
import { runTraceContext, traceModel, traceTools, withSpan } from './tracing.ts';

/** The facts about a run the telemetry needs (a `Run` row has them all). */
export interface RunRef {
  id: string;
  traceId: string;
  createdAt: Date;
  startedAt: Date | null;
  /** Claims of the run so far; 1 on its first attempt. */
  fence: number;
}

/**
 * What the runner calls to measure and trace runs. Optional in the runner (`RunExecutorDeps.telemetry`);
 * built by `createRunTelemetry`. Metric labels never carry tenant or run ids; spans may.
 */
export interface RunTelemetry {
  /** An attempt claimed the run; the first one records the queue wait (created → now). */
  attemptStarted(run: RunRef): void;
  /** Every loop event of the run (steps, tool results, compaction), as published. */
  observe(run: RunRef, event: AgentEvent): void;
  /** The run reached a final status (written by this attempt). */
  runFinished(run: RunRef, status: string): void;
  /** The run's model with `model.call` spans. */
  traceModel(run: RunRef, model: LanguageModel): LanguageModel;
  /** The run's tools with `tool.call` spans. */
  traceTools(run: RunRef, tools: ToolExecutor): ToolExecutor;
  /** A checkpoint write inside a `db.checkpoint` span. */
  traceCheckpoint<T>(run: RunRef, write: () => Promise<T>): Promise<T>;
}

/** Per-run state kept between events; bounded so runs that end elsewhere cannot leak it. */
interface RunState {
  provider: string;
  stepStartedAt?: number;
}
const MAX_TRACKED_RUNS = 10_000;
const ERROR_CODE = /^[a-z][a-z0-9_]{0,47}$/;

/**
 * Metrics (into `metrics`) and spans (through the OpenTelemetry API) for the runner.
 *
 * @example
 * const processor = createRunProcessor({ ...deps, telemetry: createRunTelemetry(processMetrics()) });
 */
export function createRunTelemetry(metrics: AgentryMetrics): RunTelemetry {
  const runs = new Map<string, RunState>();
  const stateOf = (runId: string): RunState => {
    let state = runs.get(runId);
    if (!state) {
      if (runs.size >= MAX_TRACKED_RUNS) runs.delete(runs.keys().next().value!);
      state = { provider: 'unknown' };
      runs.set(runId, state);
    }
    return state;
  };
  const countTokens = (provider: string, usage: Usage) => {
    const kinds = {
      input: usage.inputTokens,
      output: usage.outputTokens,
      cache_read: usage.cacheReadTokens,
      cache_write: usage.cacheWriteTokens,
    };
    for (const [kind, value] of Object.entries(kinds)) if (value > 0) metrics.tokens.inc({ kind, provider }, value);
  };
  const spanAttributes = (run: RunRef) => ({ 'agentry.run.id': run.id });
  const record = (state: RunState, event: AgentEvent) => {
    switch (event.type) {
      case 'run-started':
        state.provider = event.provider;
        break;
      case 'step-started':
        state.stepStartedAt = event.at;
        break;
      case 'step-finished': {
        const { step } = event;
        metrics.modelCallDuration.observe({ provider: state.provider }, step.modelLatencyMs / 1000);
        if (state.stepStartedAt !== undefined) {
          metrics.stepDuration.observe(
            { provider: state.provider, finish_reason: step.finishReason },
            Math.max(0, event.at - state.stepStartedAt) / 1000,
          );
          state.stepStartedAt = undefined;
        }
        countTokens(state.provider, step.usage);
        break;
      }
      case 'compaction':
        countTokens(state.provider, event.usage);
        break;
      case 'flow':
        // Flow names are tenant content: the action only, so the label set stays bounded.
        metrics.flowEvents.inc({ action: event.action });
        break;
      case 'tool-result':
        metrics.toolCallDuration.observe({ outcome: event.isError ? 'error' : 'ok' }, event.durationMs / 1000);
        if (event.isError) {
          const code = event.errorCode && ERROR_CODE.test(event.errorCode) ? event.errorCode : 'other';
          metrics.toolErrors.inc({ error_code: code });
        }
        break;
    }
  };

  return {
    attemptStarted(run) {
      if (run.fence === 1) metrics.queueWait.observe(Math.max(0, Date.now() - run.createdAt.getTime()) / 1000);
    },
    observe(run, event) {
      try {
        record(stateOf(run.id), event);
      } catch {
        // Metrics never fail a run.
      }
    },
    runFinished(run, status) {
      const provider = runs.get(run.id)?.provider ?? 'unknown';
      runs.delete(run.id);
      metrics.runsFinished.inc({ status });
      const since = (run.startedAt ?? run.createdAt).getTime();
      metrics.runDuration.observe({ provider, status }, Math.max(0, Date.now() - since) / 1000);
    },
    traceModel: (run, model) => traceModel(model, runTraceContext(run.traceId, run.id), spanAttributes(run)),
    traceTools: (run, tools) => traceTools(tools, runTraceContext(run.traceId, run.id), spanAttributes(run)),
    traceCheckpoint: (run, write) =>
      withSpan('db.checkpoint', spanAttributes(run), runTraceContext(run.traceId, run.id), write),
  };
}
