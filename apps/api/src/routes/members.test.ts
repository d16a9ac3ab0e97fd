import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountModes, addMember, type Browser, tenantWithOwner } from '../test-support/accounts.ts';
import { call, type Harness, seedConfig, startHarness } from '../test-support/harness.ts';

const PASSWORD = 'members-test-password';

describe.each(accountModes)('tenant members and roles (%s)', (mode) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(mode, 'openai', { workers: 0 });
  }, 60_000);
  afterAll(() => h?.close());

  const me = async (b: Browser) => (await b.request('GET', '/v1/auth/session')).json.user.id as string;

  it('viewers read but cannot write; editors write but cannot manage members; owners can', async () => {
    const t = await tenantWithOwner(h, 'Roles', 'owner@roles.test', PASSWORD);
    const editor = await addMember(h, t.owner, t.id, 'editor@roles.test', 'editor', PASSWORD);
    const viewer = await addMember(h, t.owner, t.id, 'viewer@roles.test', 'viewer', PASSWORD);
    const body = { config: seedConfig() };

    const denied = await viewer.request('POST', '/v1/agents', { tenant: t.id, body });
    expect([denied.status, denied.json.code]).toEqual([403, 'insufficient_role']);
    expect((await call(h, 'GET', '/v1/agents', { key: t.key })).json.data).toHaveLength(0);
    expect((await viewer.request('GET', '/v1/agents', { tenant: t.id })).status).toBe(200);
    expect((await viewer.request('GET', '/v1/members', { tenant: t.id })).status).toBe(200);
    expect((await viewer.request('PUT', '/v1/secrets/X', { tenant: t.id, body: { value: 'v' } })).json.code).toBe(
      'insufficient_role',
    );

    expect((await editor.request('POST', '/v1/agents', { tenant: t.id, body })).status).toBe(201);
    const viewerId = await me(viewer);
    const promote = await editor.request('PATCH', `/v1/members/${viewerId}`, { tenant: t.id, body: { role: 'owner' } });
    expect([promote.status, promote.json.code]).toEqual([403, 'insufficient_role']);
    const invite = await editor.request('POST', '/v1/invitations', {
      tenant: t.id,
      body: { email: 'x@roles.test', role: 'viewer' },
    });
    expect([invite.status, invite.json.code]).toEqual([403, 'insufficient_role']);
    expect((await editor.request('POST', '/v1/api-keys', { tenant: t.id, body: { kind: 'secret' } })).status).toBe(403);

    const list = await t.owner.request('GET', '/v1/members', { tenant: t.id });
    expect(list.json.data.map((m: any) => [m.email, m.role])).toEqual([
      ['owner@roles.test', 'owner'],
      ['editor@roles.test', 'editor'],
      ['viewer@roles.test', 'viewer'],
    ]);
    expect(list.json.data[0]).toEqual({
      object: 'member',
      user_id: expect.any(String),
      email: 'owner@roles.test',
      name: null,
      // The owner accepted a mailed invitation: the address is proven.
      email_verified: true,
      role: 'owner',
      created_at: expect.any(String),
    });
    const changed = await t.owner.request('PATCH', `/v1/members/${viewerId}`, {
      tenant: t.id,
      body: { role: 'editor' },
    });
    expect([changed.status, changed.json.role]).toEqual([200, 'editor']);
    // The new role applies to the very next request of the existing session.
    expect((await viewer.request('POST', '/v1/agents', { tenant: t.id, body })).status).toBe(201);
    const bad = await t.owner.request('PATCH', `/v1/members/${viewerId}`, { tenant: t.id, body: { role: 'admin' } });
    expect([bad.status, bad.json.code]).toEqual([422, 'validation_failed']);
    const events = await call(h, 'GET', '/v1/audit-events', { key: t.key });
    expect(events.json.data.find((e: any) => e.action === 'member.role_changed')).toMatchObject({
      actor: { type: 'user', email: 'owner@roles.test' },
      target: { type: 'user', id: viewerId },
      details: { from: 'viewer', to: 'editor' },
    });
  });

  it('keeps the last owner: no demoting or removing them, until another owner exists', async () => {
    const t = await tenantWithOwner(h, 'Owners', 'first@owners.test', PASSWORD);
    const ownerId = await me(t.owner);
    const demote = await t.owner.request('PATCH', `/v1/members/${ownerId}`, { tenant: t.id, body: { role: 'viewer' } });
    expect([demote.status, demote.json.code]).toEqual([409, 'last_owner']);
    const leave = await t.owner.request('DELETE', `/v1/members/${ownerId}`, { tenant: t.id });
    expect([leave.status, leave.json.code]).toEqual([409, 'last_owner']);
    // Through an API key too.
    const keyed = await call(h, 'DELETE', `/v1/members/${ownerId}`, { key: t.key });
    expect([keyed.status, keyed.json.code]).toEqual([409, 'last_owner']);

    const second = await addMember(h, t.owner, t.id, 'second@owners.test', 'owner', PASSWORD);
    expect(
      (await t.owner.request('PATCH', `/v1/members/${ownerId}`, { tenant: t.id, body: { role: 'viewer' } })).json.role,
    ).toBe('viewer');
    const secondId = await me(second);
    const last = await second.request('DELETE', `/v1/members/${secondId}`, { tenant: t.id });
    expect([last.status, last.json.code]).toEqual([409, 'last_owner']);
  });

  it('members may leave; owners remove others; a removed member loses access at once', async () => {
    const t = await tenantWithOwner(h, 'Leavers', 'owner@leavers.test', PASSWORD);
    const editor = await addMember(h, t.owner, t.id, 'editor@leavers.test', 'editor', PASSWORD);
    const viewer = await addMember(h, t.owner, t.id, 'viewer@leavers.test', 'viewer', PASSWORD);
    const editorId = await me(editor);
    const viewerId = await me(viewer);

    // An editor cannot remove someone else, but may leave.
    const other = await editor.request('DELETE', `/v1/members/${viewerId}`, { tenant: t.id });
    expect([other.status, other.json.code]).toEqual([403, 'insufficient_role']);
    expect((await editor.request('DELETE', `/v1/members/${editorId}`, { tenant: t.id })).status).toBe(204);
    const after = await editor.request('GET', '/v1/agents', { tenant: t.id });
    expect([after.status, after.json.code]).toEqual([403, 'not_a_member']);
    expect((await editor.request('GET', '/v1/auth/session')).json.memberships).toEqual([]);

    expect((await t.owner.request('DELETE', `/v1/members/${viewerId}`, { tenant: t.id })).status).toBe(204);
    expect((await viewer.request('GET', '/v1/agents', { tenant: t.id })).json.code).toBe('not_a_member');
    const missing = await t.owner.request('DELETE', `/v1/members/${viewerId}`, { tenant: t.id });
    expect([missing.status, missing.json.code]).toEqual([404, 'member_not_found']);
    const actions = (await call(h, 'GET', '/v1/audit-events', { key: t.key })).json.data.map((e: any) => e.action);
    expect(actions.filter((a: string) => a === 'member.removed')).toHaveLength(2);
  });

  it('a member of one tenant cannot touch another tenant’s members', async () => {
    const a = await tenantWithOwner(h, 'A', 'owner@a.test', PASSWORD);
    const b = await tenantWithOwner(h, 'B', 'owner@b.test', PASSWORD);
    const bOwner = await me(b.owner);
    const res = await a.owner.request('PATCH', `/v1/members/${bOwner}`, { tenant: b.id, body: { role: 'viewer' } });
    expect([res.status, res.json.code]).toEqual([403, 'not_a_member']);
    // Naming their own tenant finds no such member there.
    const own = await a.owner.request('DELETE', `/v1/members/${bOwner}`, { tenant: a.id });
    expect([own.status, own.json.code]).toEqual([404, 'member_not_found']);
    const members = await call(h, 'GET', '/v1/members', { key: b.key });
    expect(members.json.data.map((m: any) => m.role)).toEqual(['owner']);
  });
});
