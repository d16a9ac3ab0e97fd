import { tenants, withSystemScope } from '@agentry/db';
import { firstLink } from '@agentry/testkit';
import { count, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountModes,
  Browser,
  fixtureSql,
  invitationToken,
  linkToken,
  tenantWithOwner,
} from '../test-support/accounts.ts';
import { ADMIN_TOKEN, call, type Harness, startHarness, TEST_PUBLIC_URL } from '../test-support/harness.ts';

const PASSWORD = 'invitations-test-password';

describe.each(accountModes)('invitations (%s)', (mode) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(mode, 'openai', { workers: 0 });
  }, 60_000);
  afterAll(() => h?.close());

  it('operator creates a tenant with owner_email: the link is mailed to the owner, never answered', async () => {
    const created = await call(h, 'POST', '/v1/tenants', {
      key: ADMIN_TOKEN,
      body: { name: 'Boot', owner_email: 'Founder@Boot.test' },
    });
    expect(created.status).toBe(201);
    const invitation = created.json.owner_invitation;
    expect(invitation).toEqual({
      id: expect.any(String),
      email: 'founder@boot.test',
      delivery: 'email',
      expires_at: expect.any(String),
    });
    expect(JSON.stringify(created.json)).not.toMatch(/inv_/);
    const days = (Date.parse(invitation.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    const mail = await h.mail!.next('founder@boot.test');
    expect(mail).toMatchObject({ from: 'no-reply@agentry.test', subject: 'You are invited to Boot on Agentry' });
    expect(mail.user).toBe('agentry');
    const link = firstLink(mail.text);
    expect(link).toMatch(
      new RegExp(`^${TEST_PUBLIC_URL}/dashboard/#/accept-invitation\\?token=inv_[A-Za-z0-9_-]{43}$`),
    );
    const bad = await call(h, 'POST', '/v1/tenants', { key: ADMIN_TOKEN, body: { name: 'X', owner_email: 'nope' } });
    expect([bad.status, bad.json.code, bad.json.errors[0].path]).toEqual([422, 'validation_failed', '/owner_email']);
    expect(
      (await call(h, 'POST', '/v1/tenants', { key: ADMIN_TOKEN, body: { name: 'Plain' } })).json,
    ).not.toHaveProperty('owner_invitation');

    const owner = new Browser(h);
    const session = await owner.accept(linkToken(link), PASSWORD, 'Fay Founder');
    expect(session.status).toBe(200);
    expect(session.json).toMatchObject({
      object: 'session',
      // Accepting a mailed link proves the mailbox.
      user: { email: 'founder@boot.test', name: 'Fay Founder', email_verified: true },
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
        ['invitation.sent', 'platform'],
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
    expect(invited.json).toEqual({
      object: 'invitation',
      id: expect.any(String),
      email: 'new@flow.test',
      role: 'editor',
      delivery: 'email',
      invited_by: expect.any(String),
      created_at: expect.any(String),
      expires_at: expect.any(String),
      note: 'Invitation sent to new@flow.test.',
    });
    // The inviter sees no token: only the mailbox gets it.
    expect(invited.text).not.toMatch(/inv_/);
    const token = linkToken(firstLink((await h.mail!.next('new@flow.test')).text));
    const pending = await t.owner.request('GET', '/v1/invitations', { tenant: t.id });
    expect(pending.json.data.map((i: any) => [i.email, i.delivery])).toEqual([['new@flow.test', 'email']]);
    expect(pending.text).not.toContain(token);

    const short = await new Browser(h).accept(token, 'short');
    expect([short.status, short.json.code, short.json.errors[0].path]).toEqual([422, 'validation_failed', '/password']);
    const joiner = new Browser(h);
    const joined = await joiner.accept(token, PASSWORD);
    expect(joined.json.memberships).toEqual([{ tenant_id: t.id, tenant_name: 'Flow', role: 'editor' }]);
    expect((await new Browser(h).login('new@flow.test', PASSWORD)).status).toBe(200);
    expect((await t.owner.request('GET', '/v1/invitations', { tenant: t.id })).json.data).toEqual([]);

    const reused = await new Browser(h).accept(token, PASSWORD);
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
    const token = await invitationToken(h, 'roamer@home.test', invited.json);
    const wrong = await new Browser(h).accept(token, 'somebody elses password');
    expect([wrong.status, wrong.json.code]).toEqual([401, 'invalid_credentials']);
    expect((await call(h, 'GET', '/v1/members', { key: b.key })).json.data).toHaveLength(1);
    // No second password: the account's own one stays the only one.
    expect((await new Browser(h).login('roamer@home.test', 'somebody elses password')).status).toBe(401);

    const res = await a.owner.accept(token, PASSWORD);
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
    const late = await new Browser(h).accept(await invitationToken(h, 'late@gone.test', expiring.json), PASSWORD);
    expect([late.status, late.json.code]).toEqual([410, 'invitation_expired']);

    const revoking = await invite('revoked@gone.test');
    const revokedToken = await invitationToken(h, 'revoked@gone.test', revoking.json);
    expect((await t.owner.request('DELETE', `/v1/invitations/${revoking.json.id}`, { tenant: t.id })).status).toBe(204);
    const revoked = await new Browser(h).accept(revokedToken, PASSWORD);
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
  it('a mail the server refuses leaves no invitation (502 mail_failed), nor a tenant', async () => {
    const t = await tenantWithOwner(h, 'Bounce', 'owner@bounce.test', PASSWORD);
    h.mail!.refuseNext();
    const res = await t.owner.request('POST', '/v1/invitations', {
      tenant: t.id,
      body: { email: 'lost@bounce.test', role: 'viewer' },
    });
    expect([res.status, res.json.code]).toEqual([502, 'mail_failed']);
    expect((await t.owner.request('GET', '/v1/invitations', { tenant: t.id })).json.data).toEqual([]);

    const before = await tenantCount(h);
    h.mail!.refuseNext();
    const tenant = await call(h, 'POST', '/v1/tenants', {
      key: ADMIN_TOKEN,
      body: { name: 'Bounced', owner_email: 'owner@bounced.test' },
    });
    expect([tenant.status, tenant.json.code]).toEqual([502, 'mail_failed']);
    expect(await tenantCount(h)).toBe(before);
  });
});

async function tenantCount(h: Harness): Promise<number> {
  return withSystemScope(h.platform.database.db, 'test: count tenants', async (tx) => {
    const [row] = await tx.select({ n: count() }).from(tenants);
    return row!.n;
  });
}

describe('invitations on a server without mail', () => {
  it('no SMTP and links not shown (the production default): inviting is 503 mail_not_configured, nothing written', async () => {
    const h = await startHarness('embedded', 'openai', { mail: false, env: { SHOW_INVITATION_LINKS: 'false' } });
    try {
      const before = await tenantCount(h);
      const res = await call(h, 'POST', '/v1/tenants', {
        key: ADMIN_TOKEN,
        body: { name: 'Mute', owner_email: 'owner@mute.test' },
      });
      expect([res.status, res.json.code]).toEqual([503, 'mail_not_configured']);
      expect(await tenantCount(h)).toBe(before);
      const reset = await call(h, 'POST', '/v1/auth/password-reset', { body: { email: 'owner@mute.test' } });
      expect([reset.status, reset.json.code]).toEqual([503, 'mail_not_configured']);
    } finally {
      await h.close();
    }
  }, 60_000);

  it('SHOW_INVITATION_LINKS: the inviter gets the link, and the account it makes stays unverified', async () => {
    const h = await startHarness('embedded', 'openai', { mail: false, env: { SHOW_INVITATION_LINKS: 'true' } });
    try {
      const created = await call(h, 'POST', '/v1/tenants', {
        key: ADMIN_TOKEN,
        body: { name: 'Shown', owner_email: 'owner@shown.test' },
      });
      expect(created.json.owner_invitation).toEqual({
        id: expect.any(String),
        email: 'owner@shown.test',
        delivery: 'link',
        token: expect.stringMatching(/^inv_[A-Za-z0-9_-]{43}$/),
        accept_url: `${h.platform.url}/dashboard/#/accept-invitation?token=${created.json.owner_invitation.token}`,
        expires_at: expect.any(String),
      });
      const owner = new Browser(h);
      const session = await owner.accept(created.json.owner_invitation.token, PASSWORD);
      expect(session.json.user).toMatchObject({ email: 'owner@shown.test', email_verified: false });
      // No mail on this server: the dashboard does not ask for a confirmation that could not arrive.
      expect(session.json.mail_enabled).toBe(false);
      const invited = await owner.request('POST', '/v1/invitations', {
        tenant: created.json.id,
        body: { email: 'member@shown.test', role: 'viewer' },
      });
      expect(invited.json).toMatchObject({ delivery: 'link', token: expect.stringMatching(/^inv_/) });
      expect(invited.json.note).toMatch(/unverified/);
      await new Browser(h).accept(invited.json.token, PASSWORD);
      const members = await owner.request('GET', '/v1/members', { tenant: created.json.id });
      expect(members.json.data.map((m: any) => [m.email, m.email_verified])).toEqual([
        ['owner@shown.test', false],
        ['member@shown.test', false],
      ]);
      // Without mail nothing can confirm the address.
      const confirm = await owner.request('POST', '/v1/auth/email-confirmation');
      expect([confirm.status, confirm.json.code]).toEqual([503, 'mail_not_configured']);
      const actions = (await call(h, 'GET', '/v1/audit-events', { key: created.json.api_key.key })).json.data;
      expect(actions.map((e: any) => e.action)).not.toContain('invitation.sent');
    } finally {
      await h.close();
    }
  }, 60_000);
});
