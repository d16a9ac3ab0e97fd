import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { conversations, messages, runs } from '@agentry/db';
import {
  availableServices,
  createTestDatabase,
  deleteRedisKeys,
  type FakeLlmServer,
  type RecordingServer,
  startFakeLlm,
  startRecordingServer,
  type TestDatabase,
  testServices,
} from '@agentry/testkit';
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readApiConfig } from './config.ts';
import { type RunningPlatform, startPlatform } from './platform.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const seedConfig = JSON.parse(readFileSync(join(repoRoot, 'configs/seed-demo-booking.json'), 'utf8'));
const ADMIN_TOKEN = 'test-admin-token-0123456789';

type Mode = 'embedded' | 'production';
type Provider = 'openai' | 'anthropic';

const matrix: Array<[Mode, Provider]> = [];
for (const provider of ['openai', 'anthropic'] as const) {
  matrix.push(['embedded', provider]);
  if (availableServices().postgres && availableServices().redis) matrix.push(['production', provider]);
}
if (!availableServices().postgres || !availableServices().redis) {
  console.warn(
    '[e2e] NOTICE: Postgres or Redis unavailable: the production-mode (BullMQ + worker process) cases are SKIPPED.',
  );
}

function providerEnv(provider: Provider, llm: FakeLlmServer): Record<string, string> {
  return provider === 'openai'
    ? { OPENAI_BASE_URL: llm.openaiBaseUrl, OPENAI_API_KEY: 'test-key' }
    : { ANTHROPIC_BASE_URL: llm.anthropicBaseUrl, ANTHROPIC_API_KEY: 'test-key' };
}

/** Starts `apps/worker` as its own process and resolves once it says it is ready. */
function spawnWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(repoRoot, 'apps/worker/src/main.ts')], {
    env: { PATH: process.env.PATH ?? '', ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('worker started')) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}:\n${output}`)));
  });
}

interface Harness {
  platform: RunningPlatform;
  llm: FakeLlmServer;
  endpoint: RecordingServer;
  cleanup: Array<() => Promise<unknown> | unknown>;
}

async function startHarness(mode: Mode, provider: Provider): Promise<Harness> {
  const cleanup: Harness['cleanup'] = [];
  const llm = await startFakeLlm();
  cleanup.push(() => llm.close());
  const endpoint = await startRecordingServer();
  cleanup.push(() => endpoint.close());
  const env: Record<string, string> = {
    PORT: '0',
    PLATFORM_ADMIN_TOKEN: ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    RUN_WAIT_MS: '20000',
    ...providerEnv(provider, llm),
  };
  if (mode === 'embedded') {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentry-e2e-'));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    env.DATA_DIR = dataDir;
  } else {
    const database: TestDatabase = await createTestDatabase('postgres');
    cleanup.push(() => database.destroy());
    const prefix = `e2e-${randomBytes(6).toString('hex')}`;
    Object.assign(env, { DATABASE_URL: database.url!, REDIS_URL: testServices.redisUrl, QUEUE_PREFIX: prefix });
    cleanup.push(() => deleteRedisKeys(prefix));
    const worker = await spawnWorker(env);
    cleanup.push(
      () =>
        new Promise<void>((resolve) => {
          worker.once('exit', () => resolve());
          worker.kill('SIGTERM');
        }),
    );
  }
  const platform = await startPlatform(readApiConfig(env, mode === 'embedded'));
  cleanup.push(() => platform.close());
  return { platform, llm, endpoint, cleanup };
}

async function call(
  h: Harness,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; raw?: string } = {},
) {
  const headers: Record<string, string> = {};
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined || options.raw !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${h.platform.url}${path}`, {
    method,
    headers,
    ...(options.raw !== undefined
      ? { body: options.raw }
      : options.body !== undefined
        ? { body: JSON.stringify(options.body) }
        : {}),
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', json: text ? JSON.parse(text) : undefined };
}

/** Sends a raw body with node:http, which (unlike fetch) reads an early answer to an unfinished upload. */
function postRaw(url: string, key: string, body: string): ReturnType<typeof call> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'] ?? '', json: JSON.parse(text) }),
      );
    });
    req.on('error', (error) => {
      if (!('code' in error) || error.code !== 'EPIPE') reject(error);
    });
    req.end(body);
  });
}

async function rowCounts(h: Harness) {
  const { db } = h.platform.database;
  const [c] = await db.select({ n: count() }).from(conversations);
  const [m] = await db.select({ n: count() }).from(messages);
  const [r] = await db.select({ n: count() }).from(runs);
  return { conversations: c!.n, messages: m!.n, runs: r!.n };
}

describe.each(matrix)('end to end: %s mode, %s wire format', (mode, provider) => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness(mode, provider);
    const tenant = await call(h, 'POST', '/v1/tenants', { key: ADMIN_TOKEN, body: { name: 'Acme' } });
    expect(tenant.status).toBe(201);
    key = tenant.json.api_key.key;
  }, 60_000);
  afterAll(async () => {
    for (const fn of (h?.cleanup ?? []).reverse()) await fn();
  });

  it('books a demo: the tool endpoint gets the templated POST and the transcript is stored', async () => {
    const created = await call(h, 'POST', '/v1/agents', { key, body: { config: seedConfig } });
    expect(created.status).toBe(201);
    expect(created.json.version.version).toBe(1);
    const pointed = structuredClone(seedConfig);
    pointed.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    const v2 = await call(h, 'POST', `/v1/agents/${created.json.id}/versions`, { key, body: { config: pointed } });
    expect(v2.status).toBe(201);
    expect(v2.json).toMatchObject({ version: 2, published: true });

    const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: created.json.id } });
    expect(conv.status).toBe(201);
    const conversationId: string = conv.json.id;

    h.llm.enqueue(
      {
        type: 'reply',
        toolCalls: [{ id: 'call_1', name: 'save_customer_information', arguments: { email: 'john@example.com' } }],
        usage: { input: 50, output: 12 },
      },
      {
        type: 'reply',
        text: 'Thanks! Our team will email john@example.com to schedule the demo.',
        usage: { input: 80, output: 15 },
      },
    );
    const sent = await call(h, 'POST', `/v1/conversations/${conversationId}/messages`, {
      key,
      body: { content: 'I want to schedule a demo, my email is john@example.com' },
    });
    expect(sent.status).toBe(200);
    expect(sent.json).toMatchObject({
      status: 'completed',
      conversation_id: conversationId,
      agent_version: 2,
      reply: 'Thanks! Our team will email john@example.com to schedule the demo.',
      tool_calls: [
        { id: 'call_1', name: 'save_customer_information', arguments: { email: 'john@example.com' }, is_error: false },
      ],
      meta: { input_tokens: 130, output_tokens: 27, total_tokens: 157, tool_call_count: 1, steps: 2 },
    });
    expect(sent.json.meta.latency_ms).toBeGreaterThanOrEqual(0);

    expect(h.endpoint.requests).toHaveLength(1);
    const hit = h.endpoint.requests[0]!;
    expect(hit.method).toBe('POST');
    expect(hit.path).toBe('/contacts/add');
    expect(hit.json).toEqual({ email: 'john@example.com', dialogId: conversationId });

    // The model saw the tool's result on its second call.
    expect(h.llm.requests).toHaveLength(2);
    expect(JSON.stringify(h.llm.requests[1]!.body)).toContain('call_1');

    const transcript = await call(h, 'GET', `/v1/conversations/${conversationId}`, { key });
    expect(transcript.status).toBe(200);
    const shape = transcript.json.messages.map((m: { role: string; content: Array<{ type: string }> }) => [
      m.role,
      m.content.map((p) => p.type).join(','),
    ]);
    expect(shape).toEqual([
      ['user', 'text'],
      ['assistant', 'tool_call'],
      ['tool', 'tool_result'],
      ['assistant', 'text'],
    ]);
    expect(transcript.json.messages[2].content[0]).toMatchObject({ tool_call_id: 'call_1', is_error: false });

    const run = await call(h, 'GET', `/v1/runs/${sent.json.id}`, { key });
    expect(run.status).toBe(200);
    expect(run.json.reply).toBe(sent.json.reply);

    expect((await call(h, 'DELETE', `/v1/conversations/${conversationId}`, { key })).status).toBe(204);
    expect((await call(h, 'GET', `/v1/conversations/${conversationId}`, { key })).json.code).toBe(
      'conversation_not_found',
    );
    expect((await call(h, 'GET', `/v1/runs/${sent.json.id}`, { key })).status).toBe(404);
  });

  it('answers bad requests with problem+json and writes nothing', async () => {
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config: seedConfig } });
    const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent.json.id } });
    const before = await rowCounts(h);
    const modelCallsBefore = h.llm.requests.length;
    const path = `/v1/conversations/${conv.json.id}/messages`;
    const cases: Array<[string, Awaited<ReturnType<typeof call>>, number, string]> = [
      ['invalid JSON', await call(h, 'POST', path, { key, raw: '{"content": ' }), 400, 'invalid_json'],
      ['missing key', await call(h, 'POST', path, { body: { content: 'hi' } }), 401, 'unauthorized'],
      ['wrong key', await call(h, 'POST', path, { key: 'sk_wrong', body: { content: 'hi' } }), 401, 'unauthorized'],
      [
        'unknown agent',
        await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: '0190a3a8-0000-7000-8000-000000000000' } }),
        404,
        'agent_not_found',
      ],
      [
        'unknown conversation',
        await call(h, 'POST', '/v1/conversations/0190a3a8-0000-7000-8000-000000000000/messages', {
          key,
          body: { content: 'hi' },
        }),
        404,
        'conversation_not_found',
      ],
      ['malformed id', await call(h, 'GET', '/v1/conversations/not-an-id', { key }), 404, 'conversation_not_found'],
      [
        'body over 1 MiB',
        await postRaw(`${h.platform.url}${path}`, key, JSON.stringify({ content: 'x'.repeat(1024 * 1024 + 10) })),
        413,
        'payload_too_large',
      ],
      ['empty content', await call(h, 'POST', path, { key, body: { content: '' } }), 422, 'validation_failed'],
      [
        'invalid config',
        await call(h, 'POST', '/v1/agents', { key, body: { config: { tools: 'x' } } }),
        422,
        'validation_failed',
      ],
      [
        'admin route with tenant key',
        await call(h, 'POST', '/v1/tenants', { key, body: { name: 'x' } }),
        401,
        'unauthorized',
      ],
    ];
    for (const [name, res, status, code] of cases) {
      expect({ name, status: res.status, code: res.json?.code, type: res.type }).toEqual({
        name,
        status,
        code,
        type: 'application/problem+json',
      });
      expect(res.json).toMatchObject({
        status,
        title: expect.any(String),
        detail: expect.any(String),
        type: expect.stringMatching(/^https:/),
      });
    }
    expect(await rowCounts(h)).toEqual(before);
    expect(h.llm.requests.length).toBe(modelCallsBefore);
  });
});

describe('without a model configured', () => {
  it('answers model_not_configured and stores nothing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentry-nomodel-'));
    const platform = await startPlatform(
      readApiConfig({ PORT: '0', DATA_DIR: dataDir, PLATFORM_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'silent' }, true),
    );
    try {
      const h = { platform } as Harness;
      const tenant = await call(h, 'POST', '/v1/tenants', { key: ADMIN_TOKEN, body: { name: 'NoModel' } });
      const key = tenant.json.api_key.key;
      const agent = await call(h, 'POST', '/v1/agents', { key, body: { config: seedConfig } });
      const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent.json.id } });
      const before = await rowCounts(h);
      const res = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, {
        key,
        body: { content: 'hello' },
      });
      expect(res.status).toBe(503);
      expect(res.json.code).toBe('model_not_configured');
      expect(await rowCounts(h)).toEqual(before);
    } finally {
      await platform.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
