import { availableServices } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantWithOwner } from './test-support/accounts.ts';
import { ADMIN_TOKEN, call, type Harness, postRaw, seedConfig, startHarness } from './test-support/harness.ts';

/**
 * Regressions of issue #17 (items 4 and 5): hostile JSON that answered 500. A body nesting 10,000
 * levels overflowed the stack in a recursive walk (even on the unauthenticated routes); a lone
 * surrogate or a number like `1e400` (Infinity) got as far as the canonical hash or Postgres.
 * Every JSON route now reads its body through `readJsonValue`, which refuses them first.
 */

const mode = availableServices().postgres ? 'embedded-postgres' : 'embedded';
const PASSWORD = 'correct horse battery staple';

/** `{"<field>": [[[…10,000 levels…]]]}` merged into `fields`, as raw JSON text. */
function deeplyNested(fields: Record<string, unknown>, field: string, levels = 10_000): string {
  const head = JSON.stringify(fields).slice(0, -1);
  return `${head}${head.length > 1 ? ',' : ''}"${field}":${'['.repeat(levels)}${']'.repeat(levels)}}`;
}

/** POSTs raw JSON text, with a key when given. */
async function send(h: Harness, path: string, raw: string, auth: { key?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (auth.key) headers.authorization = `Bearer ${auth.key}`;
  const res = await fetch(`${h.platform.url}${path}`, { method: 'POST', headers, body: raw });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', json: JSON.parse(text) };
}

describe(`hostile JSON bodies never answer 500 (${mode})`, () => {
  let h: Harness;
  let key: string;
  let conversationId: string;
  let invitationToken: string;
  beforeAll(async () => {
    h = await startHarness(mode, 'openai');
    const tenant = await tenantWithOwner(h, 'Acme', 'owner@acme.test', PASSWORD);
    key = tenant.key;
    const invited = await tenant.owner.request('POST', '/v1/invitations', {
      tenant: tenant.id,
      body: { email: 'new@acme.test', role: 'viewer' },
    });
    invitationToken = invited.json.token;
    const config = seedConfig();
    config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    expect(agent.status).toBe(201);
    conversationId = (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent.json.id } })).json.id;
  }, 60_000);
  afterAll(() => h?.close());

  const tooDeep = (res: Awaited<ReturnType<typeof send>>) => {
    expect([res.status, res.type, res.json.code]).toEqual([400, 'application/problem+json', 'json_too_deep']);
    expect(res.json.max_depth).toBe(64);
  };

  it('refuses 10,000 levels of nesting on sign-in and accepting an invitation (unauthenticated): 400 json_too_deep', async () => {
    tooDeep(await send(h, '/v1/auth/login', deeplyNested({ email: 'owner@acme.test' }, 'password')));
    tooDeep(await send(h, '/v1/auth/accept-invitation', deeplyNested({ token: invitationToken }, 'password')));
  });

  it('refuses 10,000 levels of nesting in an agent upload and a chat message: 400 json_too_deep', async () => {
    const config = seedConfig();
    tooDeep(await send(h, '/v1/agents', deeplyNested({ config }, 'publish'), { key }));
    const inConfig = JSON.stringify({ config }).replace(
      '"Agent Name"',
      `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`,
    );
    tooDeep(await send(h, '/v1/agents', inConfig, { key }));
    tooDeep(await send(h, `/v1/conversations/${conversationId}/messages`, deeplyNested({}, 'content'), { key }));
    tooDeep(
      await send(h, `/v1/conversations/${conversationId}/messages`, deeplyNested({ content: 'Hi' }, 'context'), {
        key,
      }),
    );
    // The OpenAI-compatible endpoint answers in OpenAI's error shape.
    const chat = await send(h, '/v1/chat/completions', deeplyNested({ model: 'agent:x' }, 'messages'), { key });
    expect([chat.status, chat.json.error?.code]).toEqual([400, 'json_too_deep']);
  });

  it('refuses a lone surrogate in a config string, naming the field: 422', async () => {
    const config = seedConfig();
    config.basic_settings.name = 'Agent \ud800';
    const res = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    expect([res.status, res.type, res.json.code]).toEqual([422, 'application/problem+json', 'validation_failed']);
    expect(res.json.errors).toEqual([
      { path: '/config/basic_settings/name', code: 'lone_surrogate', message: expect.any(String) },
    ]);
    const validate = await call(h, 'POST', '/v1/agents/validate', { key, body: { config } });
    expect([validate.status, validate.json.errors[0].path]).toEqual([422, '/config/basic_settings/name']);
  });

  it('refuses a lone surrogate in a chat message, naming the field: 422, and stores nothing', async () => {
    const res = await call(h, 'POST', `/v1/conversations/${conversationId}/messages`, {
      key,
      body: { content: 'Hello \udc00 there' },
    });
    expect([res.status, res.json.code, res.json.errors]).toEqual([
      422,
      'validation_failed',
      [{ path: '/content', code: 'lone_surrogate', message: expect.any(String) }],
    ]);
    const conversation = await call(h, 'GET', `/v1/conversations/${conversationId}`, { key });
    expect(conversation.json.messages).toEqual([]);
  });

  it('refuses 1e400 (Infinity) in an agent config, naming the field: 422', async () => {
    const config = seedConfig();
    config.limits = { run_timeout: 0 };
    const raw = JSON.stringify({ config }).replace('"run_timeout":0', '"run_timeout":1e400');
    const res = await send(h, '/v1/agents', raw, { key });
    expect([res.status, res.json.code, res.json.errors]).toEqual([
      422,
      'validation_failed',
      [{ path: '/config/limits/run_timeout', code: 'non_finite_number', message: expect.any(String) }],
    ]);
  });

  it('refuses a body that is not UTF-8 as invalid JSON: 400', async () => {
    const res = await fetch(`${h.platform.url}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.concat([Buffer.from('{"email":"a@b.c","password":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
    });
    expect([res.status, (await res.json()).code]).toEqual([400, 'invalid_json']);
    // The operator route too (and everything in between reads through the same reader).
    const tenant = await send(h, '/v1/tenants', deeplyNested({ name: 'x' }, 'settings'), { key: ADMIN_TOKEN });
    tooDeep(tenant);
  });

  it('found by the route fuzzer: a version number past Postgres integer is 404, not 500', async () => {
    const agents = await call(h, 'GET', '/v1/agents', { key });
    const res = await call(h, 'GET', `/v1/agents/${agents.json.data[0].id}/versions/99999999999999999999`, { key });
    expect([res.status, res.json.code]).toEqual([404, 'agent_version_not_found']);
  });

  it('found by the route fuzzer: a body over 1 MiB on chat completions is refused in OpenAI’s shape', async () => {
    const res = await postRaw(
      `${h.platform.url}/v1/chat/completions`,
      key,
      JSON.stringify({ pad: 'x'.repeat(1 << 20) }),
    );
    expect([res.status, res.type, res.json.error?.code]).toEqual([413, 'application/json', 'payload_too_large']);
  });

  it('found by the route fuzzer: numbers past a Postgres integer column are 422 naming the field, not 500', async () => {
    const tenant = await call(h, 'POST', '/v1/tenants', { key: ADMIN_TOKEN, body: { name: 'Limits' } });
    const limits = await call(h, 'PATCH', `/v1/tenants/${tenant.json.id}`, {
      key: ADMIN_TOKEN,
      body: { daily_run_limit: 2 ** 31, daily_token_limit: 1e15 },
    });
    expect([limits.status, limits.json.errors.map((e: { path: string }) => e.path)]).toEqual([
      422,
      ['/daily_run_limit', '/daily_token_limit'],
    ]);
    const agents = await call(h, 'GET', '/v1/agents', { key });
    const conversation = await call(h, 'POST', '/v1/conversations', {
      key,
      body: { agent_id: agents.json.data[0].id, agent_version: 2 ** 31 },
    });
    expect([conversation.status, conversation.json.errors?.[0]?.path]).toEqual([422, '/agent_version']);
  });
});
