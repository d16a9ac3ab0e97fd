import { withSystemScope } from '@agentry/db';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopesForRole } from '../http/scopes.ts';
import { call, createTenant, type Harness, seedConfig, startHarness } from '../test-support/harness.ts';

describe('API keys: scopes, publishable keys, origins, revocation', () => {
  let h: Harness;
  let admin: string;
  let agentId: string;
  let otherAgentId: string;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai');
    admin = await createTenant(h);
    agentId = (await call(h, 'POST', '/v1/agents', { key: admin, body: { config: seedConfig() } })).json.id;
    otherAgentId = (await call(h, 'POST', '/v1/agents', { key: admin, body: { config: seedConfig() } })).json.id;
  }, 60_000);
  afterAll(() => h?.close());

  const fromOrigin = (origin: string | undefined, key: string, method: string, path: string, body?: unknown) =>
    fetch(`${h.platform.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        ...(origin ? { origin } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then(async (res) => ({ status: res.status, headers: res.headers, json: await res.json() }));

  it('holds a secret key to its scopes and lets it grant no more than it has', async () => {
    const created = await call(h, 'POST', '/v1/api-keys', {
      key: admin,
      body: { kind: 'secret', name: 'read-only', scopes: ['agents:read', 'api-keys:write'] },
    });
    expect(created.status).toBe(201);
    expect(created.json.key).toMatch(/^sk_/);
    const readOnly = created.json.key;
    expect((await call(h, 'GET', '/v1/agents', { key: readOnly })).status).toBe(200);
    const write = await call(h, 'POST', '/v1/agents', { key: readOnly, body: { config: seedConfig() } });
    expect([write.status, write.json.code]).toEqual([403, 'insufficient_scope']);
    expect((await call(h, 'GET', '/v1/secrets', { key: readOnly })).json.code).toBe('insufficient_scope');
    const escalate = await call(h, 'POST', '/v1/api-keys', { key: readOnly, body: { kind: 'secret', scopes: ['*'] } });
    expect([escalate.status, escalate.json.code]).toEqual([403, 'forbidden']);
    const narrower = await call(h, 'POST', '/v1/api-keys', {
      key: readOnly,
      body: { kind: 'secret', scopes: ['agents:read'] },
    });
    expect(narrower.status).toBe(201);
    const unknown = await call(h, 'POST', '/v1/api-keys', {
      key: admin,
      body: { kind: 'secret', scopes: ['everything'] },
    });
    expect([unknown.status, unknown.json.errors[0].code]).toEqual([422, 'unknown_scope']);
  });

  it('lists keys by prefix, never their secret, and revokes them', async () => {
    const created = await call(h, 'POST', '/v1/api-keys', { key: admin, body: { kind: 'secret', name: 'temp' } });
    const list = await call(h, 'GET', '/v1/api-keys', { key: admin });
    const listed = list.json.data.find((k: { id: string }) => k.id === created.json.id);
    expect(listed).toMatchObject({
      name: 'temp',
      kind: 'secret',
      prefix: created.json.key.slice(0, 11),
      revoked_at: null,
    });
    expect(JSON.stringify(list.json)).not.toContain(created.json.key);
    expect((await call(h, 'GET', '/v1/agents', { key: created.json.key })).status).toBe(200);
    const revoked = await call(h, 'DELETE', `/v1/api-keys/${created.json.id}`, { key: admin });
    expect(revoked.json.revoked_at).toEqual(expect.any(String));
    const after = await call(h, 'GET', '/v1/agents', { key: created.json.key });
    expect([after.status, after.json.code]).toEqual([401, 'unauthorized']);
    const other = await createTenant(h, 'Other');
    expect((await call(h, 'DELETE', `/v1/api-keys/${created.json.id}`, { key: other })).status).toBe(404);
    const events = (await call(h, 'GET', '/v1/audit-events?limit=100', { key: admin })).json.data;
    const mine = events.filter((e: any) => e.target?.id === created.json.id).map((e: any) => e.action);
    expect(mine.sort()).toEqual(['api_key.created', 'api_key.revoked']);
    expect(JSON.stringify(events)).not.toContain(created.json.key);
  });

  it('lets a publishable key chat with its agents from its origins, and nothing else', async () => {
    const created = await call(h, 'POST', '/v1/api-keys', {
      key: admin,
      body: { kind: 'publishable', agents: [agentId], allowed_origins: ['https://*.shop.example'] },
    });
    expect(created.status).toBe(201);
    const pk = created.json.key;
    expect(pk).toMatch(/^pk_/);
    const origin = 'https://www.shop.example';

    const conv = await fromOrigin(origin, pk, 'POST', '/v1/conversations', { agent_id: agentId });
    expect(conv.status).toBe(201);
    expect(conv.headers.get('access-control-allow-origin')).toBe(origin);
    h.llm.enqueue({ type: 'reply', text: 'Hello visitor' });
    const reply = await fromOrigin(origin, pk, 'POST', `/v1/conversations/${conv.json.id}/messages`, { content: 'hi' });
    expect(reply.json.reply).toBe('Hello visitor');

    const wrongOrigin = await fromOrigin('https://evil.example', pk, 'POST', '/v1/conversations', {
      agent_id: agentId,
    });
    expect([wrongOrigin.status, wrongOrigin.json.code]).toEqual([403, 'origin_not_allowed']);
    expect((await fromOrigin(undefined, pk, 'POST', '/v1/conversations', { agent_id: agentId })).json.code).toBe(
      'origin_not_allowed',
    );
    const adminRoute = await fromOrigin(origin, pk, 'GET', '/v1/agents');
    expect([adminRoute.status, adminRoute.json.code]).toEqual([403, 'forbidden']);
    const secrets = await fromOrigin(origin, pk, 'PUT', '/v1/secrets/X', { value: 'y' });
    expect(secrets.status).toBe(403);
    const otherAgent = await fromOrigin(origin, pk, 'POST', '/v1/conversations', { agent_id: otherAgentId });
    expect([otherAgent.status, otherAgent.json.code]).toEqual([404, 'agent_not_found']);
    // A conversation of another agent is invisible to it.
    const foreign = (await call(h, 'POST', '/v1/conversations', { key: admin, body: { agent_id: otherAgentId } })).json
      .id;
    expect((await fromOrigin(origin, pk, 'GET', `/v1/conversations/${foreign}`)).status).toBe(404);
  });

  it('answers CORS preflights and validates publishable key requests', async () => {
    const preflight = await fetch(`${h.platform.url}/v1/conversations`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://www.shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://www.shop.example');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    const cases: Array<[unknown, string, string]> = [
      [{ kind: 'publishable', agents: [agentId] }, '/allowed_origins', 'required'],
      [{ kind: 'publishable', allowed_origins: ['https://a.example'] }, '/agents', 'required'],
      [
        { kind: 'publishable', agents: [agentId], allowed_origins: ['https://a.example/path'] },
        '/allowed_origins/0',
        'invalid_origin',
      ],
      [
        {
          kind: 'publishable',
          agents: ['0190a3a8-0000-7000-8000-000000000000'],
          allowed_origins: ['https://a.example'],
        },
        '/agents/0',
        'agent_not_found',
      ],
      [{ kind: 'secret', agents: [agentId] }, '/agents', 'not_for_secret_keys'],
    ];
    for (const [body, path, code] of cases) {
      const res = await call(h, 'POST', '/v1/api-keys', { key: admin, body });
      expect([res.status, res.json.errors?.[0]?.path, res.json.errors?.[0]?.code]).toEqual([422, path, code]);
    }
  });

  it('shows publishable keys again to owners and editors, never secret keys, and says when a key was not kept', async () => {
    const secret = await call(h, 'POST', '/v1/api-keys', { key: admin, body: { kind: 'secret', name: 'server' } });
    const pk = await call(h, 'POST', '/v1/api-keys', {
      key: admin,
      body: { kind: 'publishable', agents: [agentId], allowed_origins: ['https://shop.example'] },
    });
    const old = await call(h, 'POST', '/v1/api-keys', {
      key: admin,
      body: { kind: 'publishable', agents: [agentId], allowed_origins: ['https://old.example'] },
    });
    // A key made before migration 0020 has no stored value.
    await withSystemScope(h.platform.database.db, 'test: a publishable key from before 0020', (tx) =>
      tx.execute(sql`update api_keys set publishable_key = null where id = ${old.json.id}`),
    );
    // Keys with an editor's and a viewer's scopes stand in for those roles' sessions (same scopes).
    const asRole = async (role: 'editor' | 'viewer') =>
      (
        await call(h, 'POST', '/v1/api-keys', {
          key: admin,
          body: { kind: 'secret', scopes: scopesForRole(role).filter((s) => s !== '*') },
        })
      ).json.key as string;
    const byId = async (key: string) => {
      const list = await call(h, 'GET', '/v1/api-keys', { key });
      expect(list.status).toBe(200);
      return new Map<string, any>(list.json.data.map((k: any) => [k.id, k]));
    };
    for (const key of [admin, await asRole('editor')]) {
      const keys = await byId(key);
      expect(keys.get(pk.json.id).key).toBe(pk.json.key);
      expect(keys.get(old.json.id).key).toBeNull();
      expect(keys.get(secret.json.id)).not.toHaveProperty('key');
    }
    const viewer = await byId(await asRole('viewer'));
    expect(viewer.get(pk.json.id)).not.toHaveProperty('key');
    // The secret key's value is nowhere: not in an answer, not in the database.
    expect(JSON.stringify([...viewer.values(), ...(await byId(admin)).values()])).not.toContain(secret.json.key);
    const stored = await withSystemScope(h.platform.database.db, 'test: stored key values', (tx) =>
      tx.execute(sql`select kind, publishable_key from api_keys where id in (${secret.json.id}, ${pk.json.id})`),
    );
    const rows = ((stored as any).rows ?? stored) as Array<{ kind: string; publishable_key: string | null }>;
    expect(rows.find((r) => r.kind === 'secret')?.publishable_key).toBeNull();
    expect(rows.find((r) => r.kind === 'publishable')?.publishable_key).toBe(pk.json.key);
  });
});
