import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountModes, Browser, fixtureSql, tenantWithOwner } from '../test-support/accounts.ts';
import { ADMIN_TOKEN, call, type Harness, startHarness } from '../test-support/harness.ts';

const PASSWORD = 'invitations-test-password';

describe.each(accountModes)('invitations (%s)', (mode) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(mode, 'openai', { workers: 0 });
  }, 60_000);
  afterAll(() => h?.close());

  it('operator creates a tenant with owner_email; the owner accepts and is signed in', async () => {
    const created = await call(h, 'POST', '/v1/tenants', {
      key: ADMIN_TOKEN,
      body: { name: 'Boot', owner_email: 'Founder@Boot.test' },
    });
    expect(created.status).toBe(201);
    const invitation = created.json.owner_invitation;
    expect(invitation).toEqual({
      token: expect.stringMatching(/^inv_[A-Za-z0-9_-]{43}$/),
      accept_url: `${h.platform.url}/dashboard/#/accept-invitation?token=${invitation.token}`,
      expires_at: expect.any(String),
    });
    const days = (Date.parse(invitation.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    const bad = await call(h, 'POST', '/v1/tenants', { key: ADMIN_TOKEN, body: { name: 'X', owner_email: 'nope' } });
    expect([bad.status, bad.json.code, bad.json.errors[0].path]).toEqual([422, 'validation_failed', '/owner_email']);
    expect(
      (await call(h, 'POST', '/v1/tenants', { key: ADMIN_TOKEN, body: { name: 'Plain' } })).json,
    ).not.toHaveProperty('owner_invitation');

    const owner = new Browser(h);
    const session = await owner.accept(invitation.token, PASSWORD, 'Fay Founder');
    expect(session.status).toBe(200);
    expect(session.json).toMatchObject({
      object: 'session',
      user: { email: 'founder@boot.test', name: 'Fay Founder' },
      memberships: [{ tenant_id: created.json.id, tenant_name: 'Boot', role: 'owner' }],
    });
    expect(owner.cookie).toBeDefined();
    expect((await owner.request('GET', '/v1/members', { tenant: created.json.id })).json.data[0].role).toBe('owner');
    const actions = (await call(h, 'GET', '/v1/audit-events', { key: created.json.api_key.key })).json.data.map(
      (e: any) => [e.action, e.actor.type],
    );
    expect(actions).toEqual(
      expect.arrayContaining([
        ['member.invited', 'platform'],
        ['member.joined', 'user'],
      ]),
    );
  });

  it('invite → accept as a new user → sign in; the token works once', async () => {
    const t = await tenantWithOwner(h, 'Flow', 'owner@flow.test', PASSWORD);
    const invited = await t.owner.request('POST', '/v1/invitations', {
      tenant: t.id,
      body: { email: 'new@flow.test', role: 'editor' },
    });
    expect(invited.status).toBe(201);
    expect(invited.json).toMatchObject({
      object: 'invitation',
      email: 'new@flow.test',
      role: 'editor',
      token: expect.stringMatching(/^inv_/),
      accept_url: expect.stringContaining('/dashboard/#/accept-invitation?token=inv_'),
    });
    const pending = await t.owner.request('GET', '/v1/invitations', { tenant: t.id });
    expect(pending.json.data.map((i: any) => i.email)).toEqual(['new@flow.test']);
    expect(pending.text).not.toContain(invited.json.token);

    const short = await new Browser(h).accept(invited.json.token, 'short');
    expect([short.status, short.json.code, short.json.errors[0].path]).toEqual([422, 'validation_failed', '/password']);
    const joiner = new Browser(h);
    const joined = await joiner.accept(invited.json.token, PASSWORD);
    expect(joined.json.memberships).toEqual([{ tenant_id: t.id, tenant_name: 'Flow', role: 'editor' }]);
    expect((await new Browser(h).login('new@flow.test', PASSWORD)).status).toBe(200);
    expect((await t.owner.request('GET', '/v1/invitations', { tenant: t.id })).json.data).toEqual([]);

    const reused = await new Browser(h).accept(invited.json.token, PASSWORD);
    expect([reused.status, reused.json.code]).toEqual([404, 'invitation_not_found']);
    const unknown = await new Browser(h).accept('inv_unknown', PASSWORD);
    expect([unknown.status, unknown.json.code]).toEqual([404, 'invitation_not_found']);
    const again = await t.owner.request('POST', '/v1/invitations', {
      tenant: t.id,
      body: { email: 'NEW@flow.test', role: 'viewer' },
    });
    expect([again.status, again.json.code]).toEqual([409, 'already_a_member']);
  });

  it('an existing user accepts with their current password', async () => {
    const a = await tenantWithOwner(h, 'Home', 'roamer@home.test', PASSWORD);
    const b = await tenantWithOwner(h, 'Away', 'owner@away.test', PASSWORD);
    const invited = await b.owner.request('POST', '/v1/invitations', {
      tenant: b.id,
      body: { email: 'roamer@home.test', role: 'viewer' },
    });
    const wrong = await new Browser(h).accept(invited.json.token, 'somebody elses password');
    expect([wrong.status, wrong.json.code]).toEqual([401, 'invalid_credentials']);
    expect((await call(h, 'GET', '/v1/members', { key: b.key })).json.data).toHaveLength(1);

    const res = await a.owner.accept(invited.json.token, PASSWORD);
    expect(res.status).toBe(200);
    expect(res.json.memberships).toEqual([
      { tenant_id: a.id, tenant_name: 'Home', role: 'owner' },
      { tenant_id: b.id, tenant_name: 'Away', role: 'viewer' },
    ]);
    // One session, two tenants, a role each.
    expect((await a.owner.request('DELETE', `/v1/invitations/${invited.json.id}`, { tenant: b.id })).json.code).toBe(
      'insufficient_role',
    );
    expect((await a.owner.request('GET', '/v1/invitations', { tenant: a.id })).status).toBe(200);
  });

  it('expired and revoked invitations cannot be accepted', async () => {
    const t = await tenantWithOwner(h, 'Gone', 'owner@gone.test', PASSWORD);
    const invite = (email: string) =>
      t.owner.request('POST', '/v1/invitations', { tenant: t.id, body: { email, role: 'viewer' } });
    const expiring = await invite('late@gone.test');
    await fixtureSql(
      h,
      sql`update invitations set expires_at = now() - interval '1 minute' where id = ${expiring.json.id}`,
    );
    const late = await new Browser(h).accept(expiring.json.token, PASSWORD);
    expect([late.status, late.json.code]).toEqual([410, 'invitation_expired']);

    const revoking = await invite('revoked@gone.test');
    expect((await t.owner.request('DELETE', `/v1/invitations/${revoking.json.id}`, { tenant: t.id })).status).toBe(204);
    const revoked = await new Browser(h).accept(revoking.json.token, PASSWORD);
    expect([revoked.status, revoked.json.code]).toEqual([404, 'invitation_not_found']);
    const twice = await t.owner.request('DELETE', `/v1/invitations/${revoking.json.id}`, { tenant: t.id });
    expect([twice.status, twice.json.code]).toEqual([404, 'invitation_not_found']);

    const members = await call(h, 'GET', '/v1/members', { key: t.key });
    expect(members.json.data.map((m: any) => m.email)).toEqual(['owner@gone.test']);
    const actions = (await call(h, 'GET', '/v1/audit-events', { key: t.key })).json.data.map((e: any) => e.action);
    expect(actions).toContain('invitation.revoked');
  });

  it('another tenant’s invitation cannot be revoked', async () => {
    const a = await tenantWithOwner(h, 'IA', 'owner@ia.test', PASSWORD);
    const b = await tenantWithOwner(h, 'IB', 'owner@ib.test', PASSWORD);
    const invited = await b.owner.request('POST', '/v1/invitations', {
      tenant: b.id,
      body: { email: 'x@ib.test', role: 'viewer' },
    });
    const res = await a.owner.request('DELETE', `/v1/invitations/${invited.json.id}`, { tenant: a.id });
    expect([res.status, res.json.code]).toEqual([404, 'invitation_not_found']);
    expect((await b.owner.request('GET', '/v1/invitations', { tenant: b.id })).json.data).toHaveLength(1);
  });
});
