import { auditEvents, withSystemScope } from '@agentry/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, call, createTenant, type Harness, seedConfig, startHarness } from '../test-support/harness.ts';

const SECRET_VALUE = 'crm-live-9d8c7b6a5f4e';

describe('audit log', () => {
  let h: Harness;
  let key: string;
  let keyId: string;
  let tenantId: string;
  let other: string;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai');
    const tenant = await call(h, 'POST', '/v1/tenants', { key: ADMIN_TOKEN, body: { name: 'Audited' } });
    key = tenant.json.api_key.key;
    keyId = tenant.json.api_key.id;
    tenantId = tenant.json.id;
    other = await createTenant(h, 'Other');
  }, 60_000);
  afterAll(() => h?.close());

  it('records each change once with its actor and target, newest first, never with secret values', async () => {
    const config = seedConfig();
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    const agentId = agent.json.id;
    config.basic_settings.name = 'Renamed';
    await call(h, 'POST', `/v1/agents/${agentId}/versions`, { key, body: { config, publish: false } });
    await call(h, 'POST', `/v1/agents/${agentId}/versions/2/publish`, { key });
    await call(h, 'PUT', '/v1/secrets/CRM_TOKEN', { key, body: { value: SECRET_VALUE } });
    await call(h, 'DELETE', '/v1/secrets/CRM_TOKEN', { key });
    const conversation = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agentId } });
    await call(h, 'DELETE', `/v1/conversations/${conversation.json.id}`, { key });
    // Refused changes are not recorded.
    expect((await call(h, 'DELETE', '/v1/secrets/CRM_TOKEN', { key })).status).toBe(404);

    const res = await call(h, 'GET', '/v1/audit-events', { key });
    expect(res.status).toBe(200);
    const apiKey = { type: 'api_key', api_key_id: keyId, api_key_prefix: key.slice(0, 11) };
    const summary = res.json.data.map((e: any) => [e.action, e.target.type, e.target.id, e.actor]);
    expect(summary).toEqual([
      ['conversation.deleted', 'conversation', conversation.json.id, apiKey],
      ['secret.deleted', 'secret', 'CRM_TOKEN', apiKey],
      ['secret.put', 'secret', 'CRM_TOKEN', apiKey],
      ['agent.version_published', 'agent', agentId, apiKey],
      ['agent.version_created', 'agent', agentId, apiKey],
      ['agent.created', 'agent', agentId, apiKey],
      ['tenant.created', 'tenant', tenantId, { type: 'platform', api_key_id: null, api_key_prefix: null }],
    ]);
    const byAction = Object.fromEntries(res.json.data.map((e: any) => [e.action, e]));
    expect(byAction['secret.put'].details).toEqual({ created: true });
    expect(byAction['agent.version_created'].details).toMatchObject({ version: 2, published: false });
    expect(byAction['agent.version_published'].details).toEqual({ version: 2, previous_version: 1 });
    expect(byAction['tenant.created'].details).toEqual({ name: 'Audited', api_key_prefix: key.slice(0, 11) });
    expect(res.json.data.every((e: any) => e.object === 'audit_event' && !Number.isNaN(Date.parse(e.created_at))));
    expect(res.json.next_cursor).toBeNull();

    // The value is nowhere: not in the API's answer, not in the table.
    expect(JSON.stringify(res.json)).not.toContain(SECRET_VALUE);
    const rows = await withSystemScope(h.platform.database.db, 'test: audit rows at rest', (tx) =>
      tx.select().from(auditEvents),
    );
    expect(JSON.stringify(rows)).not.toContain(SECRET_VALUE);
  });

  it('pages with limit and cursor', async () => {
    const first = await call(h, 'GET', '/v1/audit-events?limit=3', { key });
    expect(first.json.data).toHaveLength(3);
    const second = await call(h, 'GET', `/v1/audit-events?limit=3&cursor=${first.json.next_cursor}`, { key });
    const third = await call(h, 'GET', `/v1/audit-events?limit=3&cursor=${second.json.next_cursor}`, { key });
    const actions = [...first.json.data, ...second.json.data, ...third.json.data].map((e: any) => e.action);
    expect(actions).toHaveLength(7);
    expect(new Set(actions).size).toBe(7);
    expect(third.json.next_cursor).toBeNull();
    expect((await call(h, 'GET', '/v1/audit-events?limit=0', { key })).json.code).toBe('invalid_query');
  });

  it('shows another tenant none of these events', async () => {
    const res = await call(h, 'GET', '/v1/audit-events', { key: other });
    expect(res.json.data.map((e: any) => e.action)).toEqual(['tenant.created']);
    expect(JSON.stringify(res.json)).not.toContain(tenantId);
    expect((await call(h, 'GET', '/v1/audit-events', {})).status).toBe(401);
  });
});
