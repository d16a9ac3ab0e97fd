import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { availableServices } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readApiConfig } from './config.ts';
import { demoAgentConfig } from './embedded/demo-seed.ts';
import { startPlatform } from './platform.ts';
import {
  ADMIN_TOKEN,
  call,
  createTenant,
  type Harness,
  seedConfig as loadSeedConfig,
  type Mode,
  type Provider,
  postRaw,
  rowCounts,
  startHarness,
} from './test-support/harness.ts';

const seedConfig = loadSeedConfig();
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

describe.each(matrix)('end to end: %s mode, %s wire format', (mode, provider) => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness(mode, provider);
    key = await createTenant(h);
  }, 60_000);
  afterAll(() => h?.close());

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
    const cases: Array<[string, { status: number; type: string; json: any }, number, string]> = [
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
      ['NUL character', await call(h, 'POST', path, { key, body: { content: 'a\u0000b' } }), 422, 'validation_failed'],
      [
        'NUL in an agent name',
        await call(h, 'POST', '/v1/agents', { key, body: { config: { basic_settings: { name: 'A\u0000' } } } }),
        422,
        'validation_failed',
      ],
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
  it('the embedded mode answers with the demo model, whose tool call reaches the demo endpoint', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentry-demo-model-'));
    const platform = await startPlatform(
      readApiConfig({ PORT: '0', DATA_DIR: dataDir, PLATFORM_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'silent' }, true),
    );
    try {
      const h = { platform };
      const key = await createTenant(h, 'Demo');
      const config = demoAgentConfig(platform.url);
      const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
      expect(agent.status, JSON.stringify(agent.json)).toBe(201);
      const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent.json.id } });
      const res = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, {
        key,
        body: { content: 'I want to schedule a demo, my email is john@example.com' },
      });
      expect(res.status).toBe(200);
      expect(res.json.status).toBe('completed');
      expect(res.json.tool_calls).toMatchObject([
        {
          name: 'save_customer_information',
          is_error: false,
          output: { saved: true, contact: { email: 'john@example.com' } },
        },
      ]);
      expect(res.json.reply).toContain('Done: I called save_customer_information');
      expect(res.json.reply).toContain('built-in demo model');
      expect(res.json.meta).toMatchObject({ demo_model: true, model: { provider: 'demo', name: 'agentry-demo' } });
      const contacts = await call(h, 'GET', '/v1/demo/contacts', { key });
      expect(contacts.json.data).toMatchObject([{ email: 'john@example.com', name: null }]);
      // Another tenant's list stays empty.
      const other = await createTenant(h, 'Other');
      expect((await call(h, 'GET', '/v1/demo/contacts', { key: other })).json.data).toEqual([]);
    } finally {
      await platform.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);

  it('answers model_not_configured and stores nothing (demo model off)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentry-nomodel-'));
    const platform = await startPlatform(
      readApiConfig(
        { PORT: '0', DATA_DIR: dataDir, PLATFORM_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'silent', DEMO_MODEL: 'false' },
        true,
      ),
    );
    try {
      const h = { platform };
      const key = await createTenant(h, 'NoModel');
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
