import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type FakeLlmServer, type RecordingServer, startFakeLlm, startRecordingServer } from '@agentry/testkit';
import { SignJWT } from 'jose';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readApiConfig } from './config.ts';
import { type RunningPlatform, startPlatform } from './platform.ts';
import { ADMIN_TOKEN, seedConfig } from './test-support/harness.ts';

/**
 * Secrets never reach a log line or the model: a realistic flow (an agent whose tool sends
 * `{{secrets.CRM_TOKEN}}` in a header and in its URL, a chat that calls it, the tool tester, a
 * tool that fails, an endpoint that echoes the token back, a dashboard session, an end-user token)
 * runs with the API's pino logger at `trace` writing into memory; then every captured line and
 * every request the fake model received is searched for each credential.
 */

/** A port nothing listens on (a tool that cannot connect). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('secrets never logged', () => {
  const lines: string[] = [];
  const credentials: Record<string, string> = {
    crmToken: `crm-live-${randomBytes(12).toString('hex')}`,
    endUserSigningSecret: `eu-signing-${randomBytes(12).toString('hex')}`,
    adminToken: ADMIN_TOKEN,
  };
  let platform: RunningPlatform;
  let llm: FakeLlmServer;
  let endpoint: RecordingServer;
  let dataDir: string;

  const api = async (
    method: string,
    path: string,
    options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const res = await fetch(`${platform.url}${path}`, {
      method,
      headers: {
        ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    llm = await startFakeLlm();
    endpoint = await startRecordingServer();
    dataDir = mkdtempSync(join(tmpdir(), 'agentry-secrets-log-'));
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const logger = pino({ level: 'trace', base: { app: 'api' } }, stream);
    const env = {
      PORT: '0',
      DATA_DIR: dataDir,
      PLATFORM_ADMIN_TOKEN: ADMIN_TOKEN,
      RUN_WAIT_MS: '20000',
      EGRESS_ALLOWLIST: '127.0.0.1',
      OPENAI_BASE_URL: llm.openaiBaseUrl,
      OPENAI_API_KEY: 'test-key',
    };
    platform = await startPlatform(readApiConfig(env, true), { logger });
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await llm?.close();
    await endpoint?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds no credential in any log line or model request after a realistic flow', async () => {
    // A tenant, its key, and its first owner signing in to the dashboard.
    const tenant = await api('POST', '/v1/tenants', {
      key: ADMIN_TOKEN,
      body: { name: 'Acme', owner_email: 'owner@acme.example' },
    });
    expect(tenant.status).toBe(201);
    const key: string = tenant.json.api_key.key;
    credentials.apiKey = key;
    credentials.invitationToken = tenant.json.owner_invitation.token;
    const accepted = await api('POST', '/v1/auth/accept-invitation', {
      body: { token: tenant.json.owner_invitation.token, password: 'a long enough password' },
    });
    expect(accepted.status).toBe(200);
    const cookie = accepted.headers.get('set-cookie')!.split(';')[0]!;
    credentials.sessionCookie = cookie.split('=')[1]!;
    credentials.csrfToken = accepted.json.csrf_token;
    const session = { cookie, 'x-csrf-token': accepted.json.csrf_token, 'x-agentry-tenant': tenant.json.id };

    // The secrets, one of them set through the session.
    expect(
      (await api('PUT', '/v1/secrets/CRM_TOKEN', { headers: session, body: { value: credentials.crmToken } })).status,
    ).toBe(201);
    await api('PUT', '/v1/secrets/END_USER_JWT_SECRET', { key, body: { value: credentials.endUserSigningSecret } });
    const endUserToken = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('user-42')
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(credentials.endUserSigningSecret));
    credentials.endUserToken = endUserToken;

    // An agent whose tool sends the token in a header and in its URL.
    const config = seedConfig();
    config.tools[0].endpoint.url = `${endpoint.url}/contacts/add?token={{secrets.CRM_TOKEN}}`;
    config.tools[0].endpoint.headers['X-Crm-Token'] = '{{secrets.CRM_TOKEN}}';
    const agent = await api('POST', '/v1/agents', { key, body: { config } });
    expect(agent.status).toBe(201);
    const conversation = await api('POST', '/v1/conversations', {
      key,
      body: { agent_id: agent.json.id },
      headers: { 'x-end-user-token': endUserToken },
    });

    // 1. A chat that calls the tool, whose endpoint carelessly echoes the token back.
    endpoint.respondWith((req) => ({ status: 200, body: { saved: true, echo: req.headers['x-crm-token'] } }));
    llm.enqueue(
      { type: 'reply', toolCalls: [{ name: 'save_customer_information', arguments: { email: 'a@b.co' } }] },
      { type: 'reply', text: 'Saved.' },
    );
    const chat = await api('POST', `/v1/conversations/${conversation.json.id}/messages`, {
      key,
      body: { content: 'a@b.co' },
    });
    expect(chat.json.status).toBe('completed');
    expect(endpoint.requests.at(-1)!.headers['x-crm-token']).toBe(credentials.crmToken);

    // 2. The endpoint fails, echoing the token in its error.
    endpoint.respondWith(() => ({ status: 500, body: { error: `token ${credentials.crmToken} rejected` } }));
    llm.enqueue(
      { type: 'reply', toolCalls: [{ name: 'save_customer_information', arguments: { email: 'c@d.co' } }] },
      { type: 'reply', text: 'That did not work.' },
    );
    const failed = await api('POST', `/v1/conversations/${conversation.json.id}/messages`, {
      key,
      body: { content: 'c@d.co' },
    });
    expect(failed.json.tool_calls[0].is_error).toBe(true);

    // 3. A tool that cannot connect at all (its URL, with the token, ends up in the error).
    const broken = seedConfig();
    broken.tools[0].endpoint.url = `http://127.0.0.1:${await closedPort()}/contacts/add?token={{secrets.CRM_TOKEN}}`;
    const brokenAgent = await api('POST', '/v1/agents', { key, body: { config: broken } });
    const brokenConversation = await api('POST', '/v1/conversations', { key, body: { agent_id: brokenAgent.json.id } });
    llm.enqueue(
      { type: 'reply', toolCalls: [{ name: 'save_customer_information', arguments: { email: 'e@f.co' } }] },
      { type: 'reply', text: 'The CRM is down.' },
    );
    const unreachable = await api('POST', `/v1/conversations/${brokenConversation.json.id}/messages`, {
      key,
      body: { content: 'e@f.co' },
    });
    expect(unreachable.json.tool_calls[0].is_error).toBe(true);

    // 4. The tool tester, rendering and sending, through the session.
    endpoint.respondWith((req) => ({ status: 200, body: { echo: req.headers['x-crm-token'] } }));
    for (const send of [false, true]) {
      const tested = await api('POST', '/v1/agents/tools/test', {
        headers: session,
        body: { config, tool: 'save_customer_information', arguments: { email: 'a@b.co' }, send },
      });
      expect(tested.status).toBe(200);
      expect(JSON.stringify(tested.json)).not.toContain(credentials.crmToken);
    }

    // 5. An agent on the tenant's own model key, which the provider refuses, quoting the key back.
    credentials.ownModelKey = `sk-own-${randomBytes(12).toString('hex')}`;
    await api('PUT', '/v1/secrets/OWN_MODEL_KEY', { key, body: { value: credentials.ownModelKey } });
    const ownKey = seedConfig();
    ownKey.model = { provider: 'openai', name: 'gpt-test', api_key_secret: 'OWN_MODEL_KEY' };
    const ownKeyAgent = await api('POST', '/v1/agents', { key, body: { config: ownKey } });
    const ownKeyConversation = await api('POST', '/v1/conversations', {
      key,
      body: { agent_id: ownKeyAgent.json.id },
    });
    llm.enqueue({ type: 'error', status: 401, message: `Incorrect API key provided: ${credentials.ownModelKey}` });
    const refusedModel = await api('POST', `/v1/conversations/${ownKeyConversation.json.id}/messages`, {
      key,
      body: { content: 'hi' },
    });
    expect(refusedModel.json.status).toBe('failed');
    expect(JSON.stringify(refusedModel.json)).not.toContain(credentials.ownModelKey);

    // 6. Refused credentials are not logged either.
    await api('GET', '/v1/agents', { key: `${key}x` });
    await api('GET', '/v1/agents', { headers: { ...session, 'x-csrf-token': 'wrong' } });
    await api('POST', '/v1/auth/login', { body: { email: 'owner@acme.example', password: 'a wrong password' } });

    // The capture works and saw the flow (so the searches below can fail).
    const logged = lines.join('\n');
    expect(lines.length).toBeGreaterThan(15);
    expect(logged).toContain('"msg":"request"');
    expect(logged.match(/run finished/g)?.length).toBe(3);
    expect(logged).toContain('run failed');
    expect(llm.requests.length).toBe(7);
    const modelRequests = JSON.stringify(llm.requests);
    for (const [name, value] of Object.entries(credentials)) {
      expect(logged.includes(value), `${name} appears in a log line`).toBe(false);
      // The model key is the one credential the model's own requests carry (as their Authorization).
      if (name !== 'ownModelKey')
        expect(modelRequests.includes(value), `${name} appears in a model request`).toBe(false);
    }
  }, 120_000);
});
