import type { RunStatus } from '@agentry/contract';
import type { PendingInput } from '@agentry/contract/schemas';

/** A tool call as it streams: arguments first, the result when it arrives. */
export interface LiveToolCall {
  id: string;
  name: string;
  arguments: unknown;
  output?: unknown;
  isError?: boolean;
  errorCode?: string;
  durationMs?: number;
  /** A stored response of a tool with `cache` (the event's `cached`). */
  cached?: boolean;
  done: boolean;
}

/** One model step as it streams. */
export interface LiveStep {
  text: string;
  reasoning: string;
  toolCalls: LiveToolCall[];
  usage?: { inputTokens: number; outputTokens: number };
  modelLatencyMs?: number;
}

/** What the playground shows of a run while its events arrive (`GET /v1/runs/{id}/events`). */
export interface LiveRun {
  status: RunStatus;
  steps: LiveStep[];
  /** Calls waiting for a person (approvals, client tools), from the latest `waiting` event. */
  pending: PendingInput[];
  final: boolean;
  error?: { code?: string; message?: string };
}

export const emptyLiveRun: LiveRun = { status: 'queued', steps: [], pending: [], final: false };

type Event = { type: string; [key: string]: unknown };

const newStep = (): LiveStep => ({ text: '', reasoning: '', toolCalls: [] });

/** The run with its last step replaced (a step is opened when none is). */
function withLastStep(run: LiveRun, update: (step: LiveStep) => LiveStep): LiveRun {
  const steps = run.steps.length > 0 ? run.steps : [newStep()];
  return { ...run, steps: [...steps.slice(0, -1), update(steps.at(-1) ?? newStep())] };
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

/**
 * Applies one run event. Steps are opened by `step-started` in arrival order (a run resumed after
 * an approval numbers its steps afresh); text and tool calls go to the latest step, results to
 * their call wherever it is.
 *
 * @example
 * let run = emptyLiveRun;
 * run = applyRunEvent(run, { type: 'step-started', step: 0 });
 * run = applyRunEvent(run, { type: 'text-delta', step: 0, delta: 'Hel' }); // run.steps[0].text === 'Hel'
 */
export function applyRunEvent(run: LiveRun, event: Event): LiveRun {
  switch (event.type) {
    case 'step-started':
      return { ...run, status: 'running', steps: [...run.steps, newStep()] };
    case 'text-delta':
      return withLastStep(run, (s) => ({ ...s, text: s.text + String(event.delta ?? '') }));
    case 'reasoning-delta':
      return withLastStep(run, (s) => ({ ...s, reasoning: s.reasoning + String(event.delta ?? '') }));
    case 'tool-call': {
      const call = record(event.toolCall);
      const id = String(call.id ?? '');
      if (run.steps.some((s) => s.toolCalls.some((c) => c.id === id))) return run;
      return withLastStep(run, (s) => ({
        ...s,
        toolCalls: [...s.toolCalls, { id, name: String(call.name ?? ''), arguments: call.arguments, done: false }],
      }));
    }
    case 'tool-result': {
      const id = String(event.toolCallId ?? '');
      const result: Partial<LiveToolCall> = {
        output: event.output,
        isError: event.isError === true,
        done: true,
        ...(typeof event.errorCode === 'string' ? { errorCode: event.errorCode } : {}),
        ...(typeof event.durationMs === 'number' ? { durationMs: event.durationMs } : {}),
        ...(event.cached === true ? { cached: true } : {}),
      };
      if (!run.steps.some((s) => s.toolCalls.some((c) => c.id === id))) {
        // A result replayed by a resumed attempt, whose call streamed before: show it on its own.
        return withLastStep(run, (s) => ({
          ...s,
          toolCalls: [
            ...s.toolCalls,
            { id, name: String(event.toolName ?? ''), arguments: undefined, ...result, done: true },
          ],
        }));
      }
      return {
        ...run,
        pending: run.pending.filter((p) => p.tool_call_id !== id),
        steps: run.steps.map((s) => ({
          ...s,
          toolCalls: s.toolCalls.map((c) => (c.id === id ? { ...c, ...result } : c)),
        })),
      };
    }
    case 'step-finished': {
      const step = record(event.step);
      const usage = record(step.usage);
      return withLastStep(run, (s) => ({
        ...s,
        usage: { inputTokens: Number(usage.inputTokens ?? 0), outputTokens: Number(usage.outputTokens ?? 0) },
        ...(typeof step.modelLatencyMs === 'number' ? { modelLatencyMs: step.modelLatencyMs } : {}),
      }));
    }
    case 'waiting':
      return {
        ...run,
        status: 'waiting',
        pending: Array.isArray(event.pending) ? (event.pending as PendingInput[]) : run.pending,
      };
    case 'run-failed': {
      const error = record(event.error);
      return { ...run, error: { code: String(error.code ?? ''), message: String(error.message ?? '') } };
    }
    case 'run-status': {
      const status = String(event.status ?? run.status) as RunStatus;
      const error = event.error ? record(event.error) : undefined;
      const pending =
        status === 'waiting' ? (Array.isArray(event.pending) ? (event.pending as PendingInput[]) : run.pending) : [];
      return {
        ...run,
        status,
        pending,
        final: event.final === true || run.final,
        ...(error ? { error: { code: String(error.code ?? ''), message: String(error.message ?? '') } } : {}),
      };
    }
    default:
      return run;
  }
}

/** Everything the model has said so far, for the streaming bubble. */
export function liveText(run: LiveRun): string {
  return run.steps
    .map((s) => s.text)
    .filter(Boolean)
    .join('\n\n');
}
