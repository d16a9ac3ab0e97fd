import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { availableServices, type FakeLlmServer, startFakeLlm } from '@agentry/testkit';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readApiConfig } from '../config.ts';
import { type RunningPlatform, startPlatform } from '../platform.ts';
import {
  ADMIN_TOKEN,
  call,
  createTenant,
  type Harness,
  readSse,
  seedConfig,
  startHarness,
} from '../test-support/harness.ts';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

// ---- Prometheus text exposition, parsed strictly ----------------------------------------------

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE_LINE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/g;

function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      expect(line, 'comment line').toMatch(new RegExp(`^# (HELP|TYPE) ${NAME} `));
      continue;
    }
    const m = SAMPLE_LINE.exec(line);
    expect(m, `sample line: ${line}`).toBeTruthy();
    const labels: Record<string, string> = {};
    for (const l of (m![2] ?? '').matchAll(LABEL)) labels[l[1]!] = l[2]!;
    const raw = m![3]!;
    // Go's ParseFloat, as Prometheus reads it: numbers, ±Inf, NaN (any case).
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
    expect(Number.isNaN(value) && raw.toLowerCase() !== 'nan', `value of ${line}`).toBe(false);
    samples.push({ name: m![1]!, labels, value });
  }
  return samples;
}

/** Sum of the samples named `name` whose labels include `labels`. */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

async function scrape(url: string, token?: string): Promise<{ text: string; samples: Sample[] }> {
  const res = await fetch(`${url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  const text = await res.text();
  return { text, samples: parseMetrics(text) };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** An agent whose tool posts to the harness's recording endpoint; returns a new conversation id. */
async function conversation(h: Harness, key: string): Promise<string> {
  const config = seedConfig();
  config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
  const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
  expect(agent.status).toBe(201);
  const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent.json.id } });
  expect(conv.status).toBe(201);
  return conv.json.id;
}

/** One chat with one tool call: 130 input and 27 output tokens over two model calls. */
async function chatWithOneTool(h: Harness, key: string, toolFails = false): Promise<any> {
  const conversationId = await conversation(h, key);
  h.llm.enqueue(
    {
      type: 'reply',
      toolCalls: [{ id: 'call_1', name: 'save_customer_information', arguments: { email: 'ann@example.com' } }],
      usage: { input: 50, output: 12 },
    },
    { type: 'reply', text: 'Done.', usage: { input: 80, output: 15 } },
  );
  const sent = await call(h, 'POST', `/v1/conversations/${conversationId}/messages`, {
    key,
    body: { content: 'Book a demo for ann@example.com' },
  });
  expect(sent.status).toBe(200);
  expect(sent.json.status).toBe('completed');
  expect(sent.json.tool_calls, JSON.stringify(sent.json.tool_calls)).toMatchObject([{ is_error: toolFails }]);
  return sent.json;
}

// ---- embedded: API and runs in this process ---------------------------------------------------

describe('metrics: embedded mode, /metrics behind METRICS_TOKEN', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai', { env: { METRICS_TOKEN } });
    key = await createTenant(h);
  }, 60_000);
  afterAll(() => h?.close());

  it('requires the bearer token when METRICS_TOKEN is set', async () => {
    const url = `${h.platform.url}/metrics`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401);
    const denied = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('content-type')).toContain('application/problem+json');
    const { samples } = await scrape(h.platform.url, METRICS_TOKEN);
    // Default Node.js metrics are in the same registry.
    expect(samples.some((s) => s.name === 'process_cpu_user_seconds_total')).toBe(true);
    expect(samples.some((s) => s.name === 'nodejs_eventloop_lag_seconds')).toBe(true);
  });

  it('a run moves the run, step, model, tool, token, queue and HTTP metrics; labels carry no ids', async () => {
    const before = (await scrape(h.platform.url, METRICS_TOKEN)).samples;
    const run = await chatWithOneTool(h, key);
    const { text, samples: after } = await scrape(h.platform.url, METRICS_TOKEN);
    const delta = (name: string, labels: Record<string, string> = {}) =>
      total(after, name, labels) - total(before, name, labels);

    expect(delta('agentry_runs_finished_total', { status: 'completed' })).toBe(1);
    expect(delta('agentry_run_duration_seconds_count', { provider: 'openai', status: 'completed' })).toBe(1);
    // Tokens equal the run's usage.
    expect(delta('agentry_tokens_total', { kind: 'input', provider: 'openai' })).toBe(run.meta.input_tokens);
    expect(delta('agentry_tokens_total', { kind: 'output', provider: 'openai' })).toBe(run.meta.output_tokens);
    expect(run.meta).toMatchObject({ input_tokens: 130, output_tokens: 27 });
    expect(delta('agentry_tool_call_duration_seconds_count', { outcome: 'ok' })).toBe(1);
    expect(delta('agentry_tool_call_duration_seconds_count', { outcome: 'error' })).toBe(0);
    expect(delta('agentry_model_call_duration_seconds_count', { provider: 'openai' })).toBe(2);
    expect(delta('agentry_step_duration_seconds_count', { provider: 'openai', finish_reason: 'tool_calls' })).toBe(1);
    expect(delta('agentry_step_duration_seconds_count', { provider: 'openai', finish_reason: 'stop' })).toBe(1);
    expect(delta('agentry_queue_wait_seconds_count')).toBe(1);
    expect(
      delta('agentry_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/conversations/:id/messages',
        status: '200',
      }),
    ).toBe(1);
    // The in-process queue is sampled on scrape: nothing left once the run finished.
    for (const state of ['waiting', 'active', 'delayed'])
      expect(after.find((s) => s.name === 'agentry_queue_jobs' && s.labels.state === state)?.value).toBe(0);

    // Bounded labels: no run, conversation, tenant or trace id, no raw path anywhere.
    for (const id of [run.id, run.conversation_id, run.trace_id]) expect(text).not.toContain(id);
    const routes = new Set(after.filter((s) => s.labels.route).map((s) => s.labels.route));
    for (const route of routes) expect(route).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}/);
  });

  it('counts tool errors by error code', async () => {
    const before = (await scrape(h.platform.url, METRICS_TOKEN)).samples;
    h.endpoint.respondWith(() => ({ status: 500, body: { error: 'down' } }));
    try {
      await chatWithOneTool(h, key, true);
    } finally {
      h.endpoint.reset();
    }
    const after = (await scrape(h.platform.url, METRICS_TOKEN)).samples;
    const delta = (name: string, labels: Record<string, string>) =>
      total(after, name, labels) - total(before, name, labels);
    expect(delta('agentry_tool_errors_total', { error_code: 'http_error' })).toBe(1);
    expect(delta('agentry_tool_call_duration_seconds_count', { outcome: 'error' })).toBe(1);
  });

  it('counts open SSE streams', async () => {
    const gauge = async () =>
      total((await scrape(h.platform.url, METRICS_TOKEN)).samples, 'agentry_sse_active_streams');
    const idle = await gauge();
    const conversationId = await conversation(h, key);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    h.llm.setResponder(async () => {
      await held;
      return { type: 'reply', text: 'Later.' };
    });
    try {
      const accepted = await fetch(`${h.platform.url}/v1/conversations/${conversationId}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', prefer: 'respond-async' },
        body: JSON.stringify({ content: 'hello' }),
      });
      expect(accepted.status).toBe(202);
      const runId = (await accepted.json()).id;
      const stream = await fetch(`${h.platform.url}/v1/runs/${runId}/events`, {
        headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
      });
      expect(stream.status).toBe(200);
      const reading = readSse(stream);
      await expect.poll(gauge, { timeout: 5000 }).toBe(idle + 1);
      release();
      const events = await reading;
      expect(events.at(-1)?.data).toMatchObject({ final: true });
      await expect.poll(gauge, { timeout: 5000 }).toBe(idle);
    } finally {
      release();
      h.llm.setResponder(undefined);
    }
  });
});

// ---- request and run logs ---------------------------------------------------------------------

describe('logs: request id and tenant on request lines; tenant, run and trace ids on run lines', () => {
  let platform: RunningPlatform;
  let llm: FakeLlmServer;
  let dataDir: string;
  const lines: any[] = [];
  beforeAll(async () => {
    llm = await startFakeLlm();
    dataDir = mkdtempSync(join(tmpdir(), 'agentry-logs-'));
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
        done();
      },
    });
    const env = {
      PORT: '0',
      DATA_DIR: dataDir,
      PLATFORM_ADMIN_TOKEN: ADMIN_TOKEN,
      OPENAI_BASE_URL: llm.openaiBaseUrl,
      OPENAI_API_KEY: 'test-key',
    };
    platform = await startPlatform(readApiConfig(env, true), { logger: pino({ level: 'debug' }, sink) });
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await llm?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('logs each request with its id and tenant, echoes X-Request-Id, and logs runs with their ids', async () => {
    const h = { platform };
    const key = await createTenant(h);
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config: seedConfig() } });
    const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent.json.id } });
    llm.enqueue({ type: 'reply', text: 'Hello.' });
    const res = await fetch(`${platform.url}/v1/conversations/${conv.json.id}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': 'req-test-42' },
      body: JSON.stringify({ content: 'hi' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('req-test-42');
    const run = await res.json();
    expect(run.trace_id).toMatch(/^[0-9a-f]{32}$/);

    const requestLine = lines.find((l) => l.msg === 'request' && l.reqId === 'req-test-42');
    expect(requestLine).toMatchObject({
      level: 30,
      method: 'POST',
      route: '/v1/conversations/:id/messages',
      status: 200,
      tenantId: expect.any(String),
    });
    expect(requestLine.durationMs).toBeGreaterThanOrEqual(0);
    // A generated id when the client sent none; no tenant before the key was checked.
    const created = lines.find((l) => l.msg === 'request' && l.route === '/v1/tenants');
    expect(created.reqId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.tenantId).toBeUndefined();

    const finished = lines.find((l) => l.msg === 'run finished' && l.runId === run.id);
    expect(finished).toMatchObject({ tenantId: requestLine.tenantId, traceId: run.trace_id, status: 'completed' });

    // Probes are quiet (debug) unless they fail.
    await fetch(`${platform.url}/healthz`);
    expect(lines.find((l) => l.msg === 'request' && l.route === '/healthz')?.level).toBe(20);
  });

  it('serves /metrics without a token when METRICS_TOKEN is unset', async () => {
    const { samples } = await scrape(platform.url);
    expect(samples.some((s) => s.name === 'agentry_runs_finished_total')).toBe(true);
  });
});

// ---- production: the worker process serves its own /metrics -----------------------------------

const services = availableServices();
describe.skipIf(!services.postgres || !services.redis)('metrics: worker process on METRICS_PORT', () => {
  let h: Harness;
  let key: string;
  let workerUrl: string;
  beforeAll(async () => {
    const port = await freePort();
    workerUrl = `http://127.0.0.1:${port}`;
    h = await startHarness('production', 'openai', { env: { METRICS_PORT: String(port) } });
    key = await createTenant(h);
  }, 60_000);
  afterAll(() => h?.close());

  it('serves /healthz and Prometheus /metrics with the run, token and tool metrics of its runs', async () => {
    // The metrics server starts right after the worker's start line.
    await expect
      .poll(
        () =>
          fetch(`${workerUrl}/healthz`).then(
            (r) => r.status,
            () => 0,
          ),
        { timeout: 5000 },
      )
      .toBe(200);
    const health = await fetch(`${workerUrl}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${workerUrl}/nope`)).status).toBe(404);

    const run = await chatWithOneTool(h, key);
    const { samples } = await scrape(workerUrl);
    expect(total(samples, 'agentry_runs_finished_total', { status: 'completed' })).toBe(1);
    expect(total(samples, 'agentry_tokens_total', { kind: 'input' })).toBe(run.meta.input_tokens);
    expect(total(samples, 'agentry_tokens_total', { kind: 'output' })).toBe(run.meta.output_tokens);
    expect(total(samples, 'agentry_tool_call_duration_seconds_count')).toBe(1);
    expect(total(samples, 'agentry_queue_wait_seconds_count')).toBe(1);
    // BullMQ depth sampled on scrape (from the worker's and the API's side alike).
    expect(samples.filter((s) => s.name === 'agentry_queue_jobs').map((s) => s.labels.state)).toEqual(
      expect.arrayContaining(['waiting', 'active', 'delayed']),
    );
    const api = (await scrape(h.platform.url)).samples;
    expect(api.filter((s) => s.name === 'agentry_queue_jobs')).toHaveLength(3);
  });
});
