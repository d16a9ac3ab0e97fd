import { randomBytes } from 'node:crypto';
import { auditEvents, modelProviders, withSystemScope } from '@agentry/db';
import { FAKE_MODELS } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, runModes, seedConfig, startHarness } from '../test-support/harness.ts';

const modes = runModes('model-providers');

const KEY = 'sk-tenant-own-4b9e1d7c';

/**
 * A tenant's own model provider, on a platform whose operator configured no model at all: the
 * tenant's runs answer through it (the API's run service and the worker's setup alike), another
 * tenant still gets `model_not_configured`, and the key never comes back out.
 */
describe.each(modes)('tenant model providers (%s)', (mode) => {
  let h: Harness;
  let key: string;
  let other: string;
  beforeAll(async () => {
    h = await startHarness(mode, 'none', { env: { SECRETS_KEY: randomBytes(32).toString('base64') } });
    key = await createTenant(h, 'Own model');
    other = await createTenant(h, 'No model');
  }, 120_000);
  afterAll(() => h?.close());

  async function conversationOf(apiKey: string) {
    const agent = await call(h, 'POST', '/v1/agents', { key: apiKey, body: { config: seedConfig() } });
    expect(agent.status).toBe(201);
    return call(h, 'POST', '/v1/conversations', { key: apiKey, body: { agent_id: agent.json.id } });
  }

  it('refuses to run without any provider (model_not_configured)', async () => {
    const conv = await conversationOf(key);
    const refused = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, {
      key,
      body: { content: 'Hi' },
    });
    expect([refused.status, refused.json.code]).toEqual([503, 'model_not_configured']);
  });

  it('runs on the tenant’s own OpenAI-compatible provider, key sealed and never shown', async () => {
    const put = await call(h, 'PUT', '/v1/model-providers/openai_compatible', {
      key,
      body: { api_key: KEY, base_url: h.llm.openaiBaseUrl, default_model: 'fake-large', is_default: true },
    });
    expect(put.status).toBe(201);
    expect(put.json).toMatchObject({
      object: 'model_provider',
      provider: 'openai_compatible',
      api_key_set: true,
      is_default: true,
      default_model: 'fake-large',
      created: true,
    });
    const list = await call(h, 'GET', '/v1/model-providers', { key });
    expect(list.json.data).toHaveLength(1);
    expect(JSON.stringify(list.json)).not.toContain(KEY);
    expect((await call(h, 'GET', '/v1/model-providers', { key: other })).json.data).toEqual([]);

    const test = await call(h, 'POST', '/v1/model-providers/openai_compatible/test', { key });
    expect(test.json).toMatchObject({ object: 'model_provider_test', ok: true, models: FAKE_MODELS });
    expect((await call(h, 'GET', '/v1/model-providers', { key })).json.data[0].models).toEqual(FAKE_MODELS);

    const conv = await conversationOf(key);
    h.llm.enqueue({ type: 'reply', text: 'Answered by the tenant’s own model.' });
    const run = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, {
      key,
      body: { content: 'Hello' },
    });
    expect([run.status, run.json.status]).toEqual([200, 'completed']);
    const sent = h.llm.requests.at(-1)!;
    expect(sent.body.model).toBe('fake-large');
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);

    // At rest, no column holds the key; the audit log says what changed, never the key.
    const { rows, events } = await withSystemScope(h.platform.database.db, 'test: providers at rest', async (tx) => ({
      rows: await tx.select().from(modelProviders),
      events: await tx.select().from(auditEvents),
    }));
    expect(JSON.stringify(rows)).not.toContain(KEY);
    expect(events.map((e) => e.action)).toContain('model_provider.created');
    expect(JSON.stringify(events)).not.toContain(KEY);
  });

  it('leaves another tenant without a provider at model_not_configured', async () => {
    const conv = await conversationOf(other);
    const refused = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, {
      key: other,
      body: { content: 'Hi' },
    });
    expect([refused.status, refused.json.code]).toEqual([503, 'model_not_configured']);
  });

  it('keeps the stored key when a change omits it, and falls back when the provider is removed', async () => {
    const changed = await call(h, 'PUT', '/v1/model-providers/openai_compatible', {
      key,
      body: { default_model: 'fake-small' },
    });
    expect([changed.status, changed.json.api_key_set, changed.json.created]).toEqual([200, true, false]);
    const missingBase = await call(h, 'PUT', '/v1/model-providers/openai_compatible', {
      key: other,
      body: { api_key: 'x' },
    });
    expect([missingBase.status, missingBase.json.code]).toEqual([422, 'validation_failed']);
    const unknown = await call(h, 'PUT', '/v1/model-providers/gemini', { key, body: {} });
    expect([unknown.status, unknown.json.code]).toEqual([400, 'invalid_model_provider']);
    expect((await call(h, 'DELETE', '/v1/model-providers/openai_compatible', { key: other })).status).toBe(404);
    expect((await call(h, 'DELETE', '/v1/model-providers/openai_compatible', { key })).status).toBe(204);
    const conv = await conversationOf(key);
    const refused = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, {
      key,
      body: { content: 'Hi' },
    });
    expect(refused.json.code).toBe('model_not_configured');
  });

  it('sends a run to a tenant’s base URL only through the egress guard', async () => {
    // 127.0.0.2 is loopback but not on the harness's allowlist (127.0.0.1): the guard refuses it
    // before connecting, where an unguarded client would try (and fail to connect).
    const port = new URL(h.llm.url).port;
    await call(h, 'PUT', '/v1/model-providers/openai_compatible', {
      key,
      body: { api_key: KEY, base_url: `http://127.0.0.2:${port}/v1`, is_default: true },
    });
    const conv = await conversationOf(key);
    const before = h.llm.requests.length;
    const run = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, {
      key,
      body: { content: 'Hello' },
    });
    expect(run.json.status).toBe('failed');
    expect(JSON.stringify(run.json.error)).toContain('egress_forbidden_address');
    expect(h.llm.requests.length).toBe(before);
    expect((await call(h, 'DELETE', '/v1/model-providers/openai_compatible', { key })).status).toBe(204);
  });

  it('answers a failed connection test as data with a stable code', async () => {
    await call(h, 'PUT', '/v1/model-providers/openai', {
      key,
      body: { api_key: KEY, base_url: 'http://10.255.255.1/v1' },
    });
    const test = await call(h, 'POST', '/v1/model-providers/openai/test', { key });
    expect(test.status).toBe(200);
    expect(test.json).toMatchObject({ ok: false, models: [], error: { code: 'egress_forbidden_address' } });
    expect(JSON.stringify(test.json)).not.toContain(KEY);
    expect((await call(h, 'POST', '/v1/model-providers/anthropic/test', { key })).status).toBe(404);
  });
});
