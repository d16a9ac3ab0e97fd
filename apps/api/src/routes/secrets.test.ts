import { secrets as secretsTable, withSystemScope } from '@agentry/db';
import { availableServices } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createTenant,
  type Harness,
  type Mode,
  rowCounts,
  seedConfig,
  startHarness,
} from '../test-support/harness.ts';

const modes: Mode[] = availableServices().postgres ? ['embedded', 'embedded-postgres'] : ['embedded'];
const TOKEN = 'crm-live-7f3a9c1e5b2d';

describe.each(modes)('tenant secrets (%s)', (mode) => {
  let h: Harness;
  let key: string;
  let other: string;
  beforeAll(async () => {
    h = await startHarness(mode, 'openai');
    key = await createTenant(h, 'A');
    other = await createTenant(h, 'B');
  }, 60_000);
  afterAll(() => h?.close());

  it('is write-only: values go in, names and dates come out, per tenant', async () => {
    expect((await call(h, 'PUT', '/v1/secrets/CRM_TOKEN', { key, body: { value: 'first' } })).status).toBe(201);
    const replaced = await call(h, 'PUT', '/v1/secrets/CRM_TOKEN', { key, body: { value: TOKEN } });
    expect([replaced.status, replaced.json]).toEqual([200, { object: 'secret', name: 'CRM_TOKEN', created: false }]);
    const list = await call(h, 'GET', '/v1/secrets', { key });
    expect(list.json.data.map((s: { name: string }) => s.name)).toEqual(['CRM_TOKEN']);
    expect(JSON.stringify(list.json)).not.toContain(TOKEN);
    expect((await call(h, 'GET', '/v1/secrets', { key: other })).json.data).toEqual([]);
    expect((await call(h, 'DELETE', '/v1/secrets/CRM_TOKEN', { key: other })).status).toBe(404);
    const bad = await call(h, 'PUT', '/v1/secrets/not-valid!', { key, body: { value: 'x' } });
    expect([bad.status, bad.json.code]).toEqual([400, 'invalid_secret_name']);
    // At rest, no column holds the value.
    const rows = await withSystemScope(h.platform.database.db, 'test: secrets at rest', (tx) =>
      tx.select().from(secretsTable),
    );
    expect(JSON.stringify(rows)).not.toContain(TOKEN);
    expect(rows.every((r) => r.keyId && r.iv && r.tag)).toBe(true);
  });

  it('fills {{secrets.X}} in tool requests and never shows it to the model or in API answers', async () => {
    await call(h, 'PUT', '/v1/secrets/CRM_TOKEN', { key, body: { value: TOKEN } });
    const config = seedConfig();
    config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    config.tools[0].endpoint.headers['X-Crm-Token'] = '{{secrets.CRM_TOKEN}}';
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent.json.id } });
    // A careless endpoint that echoes the token back: the model must still not see it.
    h.endpoint.respondWith((req) => ({ status: 200, body: { saved: true, echo: req.headers['x-crm-token'] } }));
    h.llm.enqueue(
      { type: 'reply', toolCalls: [{ name: 'save_customer_information', arguments: { email: 'a@b.co' } }] },
      { type: 'reply', text: 'Saved.' },
    );
    const run = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, {
      key,
      body: { content: 'a@b.co' },
    });
    expect(run.json.status).toBe('completed');
    expect(h.endpoint.requests.at(-1)!.headers['x-crm-token']).toBe(TOKEN);
    expect(JSON.stringify(h.llm.requests)).not.toContain(TOKEN);
    expect(JSON.stringify(run.json)).not.toContain(TOKEN);
    const transcript = await call(h, 'GET', `/v1/conversations/${conv.json.id}`, { key });
    expect(JSON.stringify(transcript.json)).not.toContain(TOKEN);
    const tested = await call(h, 'POST', '/v1/agents/tools/test', {
      key,
      body: { config, tool: 'save_customer_information', arguments: { email: 'a@b.co' }, send: true },
    });
    expect(tested.status).toBe(200);
    expect(JSON.stringify(tested.json)).not.toContain(TOKEN);
    h.endpoint.respondWith(() => ({ status: 200, body: { ok: true } }));
  });

  it('refuses a chat whose agent needs a secret that is not set, writing nothing', async () => {
    const config = seedConfig();
    config.tools[0].endpoint.headers.Authorization = 'Bearer {{secrets.NOT_SET_YET}}';
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent.json.id } });
    const before = await rowCounts(h);
    const res = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, { key, body: { content: 'hi' } });
    expect([res.status, res.json.code, res.json.missing]).toEqual([409, 'missing_secret', ['NOT_SET_YET']]);
    expect(await rowCounts(h)).toEqual(before);
  });

  it('uses an agent’s own model API key from a secret', async () => {
    await call(h, 'PUT', '/v1/secrets/OWN_OPENAI_KEY', { key, body: { value: 'sk-tenant-own-key-123' } });
    const config = seedConfig();
    config.model = { provider: 'openai', name: 'gpt-test', api_key_secret: 'OWN_OPENAI_KEY' };
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent.json.id } });
    h.llm.enqueue({ type: 'reply', text: 'Hi from your own key' });
    const res = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, { key, body: { content: 'hi' } });
    expect(res.json.reply).toBe('Hi from your own key');
    const sent = h.llm.requests.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer sk-tenant-own-key-123');
    expect(sent.body.model).toBe('gpt-test');
  });
});
