import { SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, seedConfig, startHarness } from '../test-support/harness.ts';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });

const durationMs = (span: ReadableSpan) => span.duration[0] * 1000 + span.duration[1] / 1e6;

describe('OpenTelemetry spans of a run (in-memory exporter registered by the test)', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
    h = await startHarness('embedded', 'openai');
    key = await createTenant(h);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await provider.shutdown();
    trace.disable();
  });

  it('wraps model calls, tool calls and checkpoints in spans of the run’s trace, with duration and status', async () => {
    const config = seedConfig();
    config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent.json.id } });
    h.endpoint.respondWith((req) => ({
      status: (req.json as { email?: string } | undefined)?.email === 'bad@example.com' ? 500 : 200,
      body: { ok: true },
      delayMs: 20,
    }));
    h.llm.enqueue(
      {
        type: 'reply',
        toolCalls: [
          { id: 'call_ok', name: 'save_customer_information', arguments: { email: 'ann@example.com' } },
          { id: 'call_bad', name: 'save_customer_information', arguments: { email: 'bad@example.com' } },
        ],
      },
      { type: 'reply', text: 'Saved one of them.' },
    );
    exporter.reset();
    const sent = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, {
      key,
      body: { content: 'Save ann@example.com and bad@example.com' },
    });
    expect(sent.json.status).toBe('completed');
    const runSpans = exporter.getFinishedSpans().filter((s) => s.attributes['agentry.run.id'] === sent.json.id);
    const named = (name: string) => runSpans.filter((s) => s.name === name);

    // Every span of the run lands in the run's trace (its trace_id in the API and the logs).
    expect(
      runSpans.length,
      JSON.stringify(exporter.getFinishedSpans().map((s) => [s.name, s.attributes])),
    ).toBeGreaterThan(0);
    for (const span of runSpans) expect(span.spanContext().traceId).toBe(sent.json.trace_id);

    const models = named('model.call');
    expect(models).toHaveLength(2);
    for (const span of models) {
      expect(span.status.code).toBe(SpanStatusCode.OK);
      expect(span.attributes['gen_ai.system']).toBe('openai');
      expect(durationMs(span)).toBeGreaterThan(0);
    }

    const tools = named('tool.call');
    expect(tools).toHaveLength(2);
    const ok = tools.find((s) => s.attributes['gen_ai.tool.call.id'] === 'call_ok')!;
    const bad = tools.find((s) => s.attributes['gen_ai.tool.call.id'] === 'call_bad')!;
    expect(ok.status.code).toBe(SpanStatusCode.OK);
    expect(bad.status).toEqual({ code: SpanStatusCode.ERROR, message: 'http_error' });
    expect(bad.attributes['agentry.tool.error_code']).toBe('http_error');
    for (const span of tools) expect(durationMs(span)).toBeGreaterThanOrEqual(15);

    const checkpoints = named('db.checkpoint');
    expect(checkpoints.length).toBeGreaterThanOrEqual(2);
    for (const span of checkpoints) expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
  });
});
