import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { afterAll, describe, expect, it } from 'vitest';
import { startTelemetry } from './start-telemetry.ts';
import { withSpan } from './tracing.ts';

interface Received {
  path: string;
  contentType: string;
  body: string;
}

/** A stand-in OTLP/HTTP collector: records what it is sent and answers 200. */
async function startCollector() {
  const received: Received[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    received.push({
      path: req.url ?? '',
      contentType: req.headers['content-type'] ?? '',
      body: Buffer.concat(chunks).toString('utf8'),
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('startTelemetry', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('registers nothing without an endpoint: spans stay no-ops', async () => {
    const handle = await startTelemetry({ serviceName: 'agentry-test' });
    expect(handle.tracing).toBe(false);
    const span = trace.getTracer('agentry').startSpan('x');
    expect(span.isRecording()).toBe(false);
    span.end();
    await handle.shutdown();
  });

  it('exports spans over OTLP/HTTP to <endpoint>/v1/traces when an endpoint is configured', async () => {
    const collector = await startCollector();
    cleanups.push(collector.close);
    const handle = await startTelemetry({ serviceName: 'agentry-test', otlpEndpoint: `${collector.url}/` });
    expect(handle.tracing).toBe(true);
    expect(await withSpan('tool.call', { 'gen_ai.tool.name': 'lookup' }, ROOT_CONTEXT, async () => 1)).toBe(1);
    await handle.shutdown(); // flushes the batch
    const traces = collector.received.filter((r) => r.path === '/v1/traces');
    expect(traces.length).toBeGreaterThanOrEqual(1);
    expect(traces[0]!.contentType).toContain('application/json');
    const body = traces.map((r) => r.body).join('\n');
    expect(body).toContain('tool.call');
    expect(body).toContain('agentry-test'); // service.name
  });
});
