import type { AgentEvent, ToolExecutor } from '@agentry/agent';
import type { LanguageModel, ModelResponse } from '@agentry/llm';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.ts';
import { createRunTelemetry, type RunRef } from './run-telemetry.ts';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
beforeAll(() => {
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
});

const usage = (input: number, output: number) => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});

function runRef(overrides: Partial<RunRef> = {}): RunRef {
  return {
    id: 'run-1',
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    createdAt: new Date(Date.now() - 2000),
    startedAt: new Date(Date.now() - 1000),
    fence: 1,
    ...overrides,
  };
}

describe('createRunTelemetry: metrics from run events', () => {
  it('records queue wait, steps, model and tool latency, tool errors, tokens and the finished run', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const telemetry = createRunTelemetry(metrics);
    const run = runRef();
    telemetry.attemptStarted(run);
    telemetry.attemptStarted(runRef({ fence: 2 })); // a later claim is not queue wait
    let seq = 0;
    const at = Date.now();
    const emit = (body: Record<string, unknown>, offset: number) =>
      telemetry.observe(run, { ...body, seq: seq++, at: at + offset } as AgentEvent);
    emit({ type: 'run-started', provider: 'anthropic', modelId: 'm', tools: [] }, 0);
    emit({ type: 'step-started', step: 0 }, 0);
    emit(
      { type: 'tool-result', step: 0, toolCallId: 'a', toolName: 't', output: 1, isError: false, durationMs: 40 },
      300,
    );
    emit(
      {
        type: 'tool-result',
        step: 0,
        toolCallId: 'b',
        toolName: 't',
        output: 1,
        isError: true,
        errorCode: 'tool_timeout',
        durationMs: 50,
      },
      310,
    );
    emit(
      {
        type: 'tool-result',
        step: 0,
        toolCallId: 'c',
        toolName: 't',
        output: 1,
        isError: true,
        errorCode: 'Weird Code!',
        durationMs: 1,
      },
      320,
    );
    emit(
      {
        type: 'step-finished',
        step: {
          index: 0,
          modelLatencyMs: 250,
          usage: usage(100, 10),
          finishReason: 'tool_calls',
          toolCalls: [],
          executedToolCalls: 3,
        },
      },
      400,
    );
    emit(
      {
        type: 'compaction',
        step: 1,
        summary: 's',
        compactedMessages: 2,
        keptMessages: 1,
        estimatedTokens: 9,
        usage: usage(7, 3),
        durationMs: 5,
      },
      410,
    );
    emit({ type: 'flow', step: 1, flow: 'tenant_named_flow', action: 'slot', stepId: 'ask' }, 420);
    emit({ type: 'flow', step: 1, flow: 'tenant_named_flow', action: 'slot' }, 421);
    telemetry.runFinished(run, 'completed');

    const r = metrics.registry;
    const hist = (await r.getMetricsAsJSON()).find((m) => m.name === 'agentry_queue_wait_seconds')!;
    const waited = (suffix: string) =>
      hist.values.find((v) => (v as { metricName?: string }).metricName === `agentry_queue_wait_seconds_${suffix}`);
    expect(waited('count')?.value).toBe(1);
    expect(waited('sum')?.value).toBeGreaterThanOrEqual(1.9);
    const text = await r.metrics();
    expect(text).toContain('agentry_step_duration_seconds_count{provider="anthropic",finish_reason="tool_calls"} 1');
    expect(text).toContain('agentry_step_duration_seconds_sum{provider="anthropic",finish_reason="tool_calls"} 0.4');
    expect(text).toContain('agentry_model_call_duration_seconds_sum{provider="anthropic"} 0.25');
    expect(text).toContain('agentry_tool_call_duration_seconds_count{outcome="ok"} 1');
    expect(text).toContain('agentry_tool_call_duration_seconds_count{outcome="error"} 2');
    expect(text).toContain('agentry_tool_errors_total{error_code="tool_timeout"} 1');
    expect(text).toContain('agentry_tool_errors_total{error_code="other"} 1');
    expect(text).toContain('agentry_flow_events_total{action="slot"} 2');
    expect(text).not.toContain('tenant_named_flow');
    expect(text).toContain('agentry_tokens_total{kind="input",provider="anthropic"} 107');
    expect(text).toContain('agentry_tokens_total{kind="output",provider="anthropic"} 13');
    expect(text).not.toContain('kind="cache_read"');
    expect(text).toContain('agentry_runs_finished_total{status="completed"} 1');
    expect(text).toContain('agentry_run_duration_seconds_count{provider="anthropic",status="completed"} 1');
    expect(text).not.toContain('run-1');
  });

  it('samples the tracked queues on scrape and reports nothing for a queue that cannot answer', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const a = { counts: async () => ({ waiting: 2, active: 1, delayed: 0 }) };
    const b = { counts: async () => ({ waiting: 1, active: 0, delayed: 4 }) };
    const stopA = metrics.trackQueue(a);
    metrics.trackQueue(b);
    let text = await metrics.registry.metrics();
    expect(text).toContain('agentry_queue_jobs{state="waiting"} 3');
    expect(text).toContain('agentry_queue_jobs{state="delayed"} 4');
    stopA();
    const broken = {
      counts: async () => {
        throw new Error('redis down');
      },
    };
    metrics.trackQueue(broken);
    text = await metrics.registry.metrics();
    expect(text).not.toMatch(/agentry_queue_jobs\{/);
  });
});

describe('createRunTelemetry: spans', () => {
  const response: ModelResponse = { content: [], finishReason: 'stop', usage: usage(5, 2), modelId: 'fake-1' };
  const model: LanguageModel = {
    provider: 'openai',
    modelId: 'fake-1',
    generate: async () => response,
    async *stream() {
      yield { type: 'text-delta', delta: 'hi' };
      yield { type: 'finish', response };
    },
  };
  const failing: LanguageModel = {
    ...model,
    // biome-ignore lint/correctness/useYield: fails before its first event
    async *stream() {
      throw new Error('upstream 500');
    },
  };
  const tools: ToolExecutor = {
    definitions: () => [],
    execute: async (call) =>
      call.name === 'bad' ? { output: 'no', isError: true, errorCode: 'http_error' } : { output: 'ok', isError: false },
  };

  it('puts model, tool and checkpoint spans in the run’s trace with their status', async () => {
    exporter.reset();
    const telemetry = createRunTelemetry(createMetrics({ defaultMetrics: false }));
    const run = runRef();
    for await (const _ of telemetry.traceModel(run, model).stream({ messages: [] })) {
      // drain
    }
    await expect(
      (async () => {
        for await (const _ of telemetry.traceModel(run, failing).stream({ messages: [] })) {
          // drain
        }
      })(),
    ).rejects.toThrow('upstream 500');
    const traced = telemetry.traceTools(run, tools);
    await traced.execute({ type: 'tool_call', id: 'c1', name: 'good', arguments: {} });
    await traced.execute({ type: 'tool_call', id: 'c2', name: 'bad', arguments: {} });
    await expect(
      telemetry.traceCheckpoint(run, async () => {
        throw new Error('stale attempt');
      }),
    ).rejects.toThrow('stale attempt');
    expect(await telemetry.traceCheckpoint(run, async () => 42)).toBe(42);

    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual([
      'model.call',
      'model.call',
      'tool.call',
      'tool.call',
      'db.checkpoint',
      'db.checkpoint',
    ]);
    for (const span of spans) {
      expect(span.spanContext().traceId).toBe(run.traceId);
      expect(span.attributes['agentry.run.id']).toBe('run-1');
    }
    // One stable parent per run, whatever the attempt.
    expect(new Set(spans.map((s) => s.parentSpanContext?.spanId)).size).toBe(1);
    expect(spans[0]!.status.code).toBe(SpanStatusCode.OK);
    expect(spans[0]!.attributes['gen_ai.usage.input_tokens']).toBe(5);
    expect(spans[1]!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'upstream 500' });
    expect(spans[1]!.events.map((e) => e.name)).toContain('exception');
    expect(spans[2]!.status.code).toBe(SpanStatusCode.OK);
    expect(spans[3]!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'http_error' });
    expect(spans[4]!.status.code).toBe(SpanStatusCode.ERROR);
    expect(spans[5]!.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('ends a streamed call’s span when its consumer leaves early, and keeps the model’s abort promise', async () => {
    exporter.reset();
    const telemetry = createRunTelemetry(createMetrics({ defaultMetrics: false }));
    const traced = telemetry.traceModel(runRef(), { ...model, honoursAbort: true });
    expect(traced.honoursAbort).toBe(true);
    expect(telemetry.traceModel(runRef(), model).honoursAbort).toBeUndefined();
    for await (const event of traced.stream({ messages: [] })) if (event.type === 'text-delta') break;
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['model.call']);
  });

  it('starts a fresh trace when the run’s trace id is not W3C-shaped', async () => {
    exporter.reset();
    const telemetry = createRunTelemetry(createMetrics({ defaultMetrics: false }));
    await telemetry.traceCheckpoint(runRef({ traceId: 'trace' }), async () => {});
    const [span] = exporter.getFinishedSpans();
    expect(span!.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span!.parentSpanContext).toBeUndefined();
  });
});
