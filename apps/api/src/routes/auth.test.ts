import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountModes, Browser, fixtureSql, tenantWithOwner } from '../test-support/accounts.ts';
import { ADMIN_TOKEN, call, type Harness, seedConfig, startHarness } from '../test-support/harness.ts';

const PASSWORD = 'correct horse battery';

describe.each(accountModes)('dashboard sign-in (%s)', (mode) => {
  let h: Harness;
  let tenant: Awaited<ReturnType<typeof tenantWithOwner>>;
  beforeAll(async () => {
    h = await startHarness(mode, 'openai', { workers: 0 });
    tenant = await tenantWithOwner(h, 'Acme', 'Owner@Acme.test', PASSWORD);
  }, 60_000);
  afterAll(() => h?.close());

  it('signs in with the right password and sets a hardened session cookie', async () => {
    const b = new Browser(h);
    const res = await b.login('owner@acme.test', PASSWORD);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      object: 'session',
      user: { id: expect.any(String), email: 'owner@acme.test', name: null, email_verified: true },
      mail_enabled: true,
      demo_model: false,
      memberships: [{ tenant_id: tenant.id, tenant_name: 'Acme', role: 'owner' }],
      csrf_token: expect.any(String),
    });
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('agentry_session='))!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).toMatch(/; Max-Age=604800/);
    expect(cookie).not.toMatch(/Secure/);
    // The cookie is opaque: not the csrf token, not the user id.
    expect(b.cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(b.cookie).not.toContain(res.json.csrf_token);

    const secure = await new Browser(h).login('owner@acme.test', PASSWORD, { 'x-forwarded-proto': 'https' });
    expect(secure.headers.getSetCookie().join()).toMatch(/; Secure/);

    const session = await b.request('GET', '/v1/auth/session');
    expect([session.status, session.json.user.email, session.json.csrf_token]).toEqual([
      200,
      'owner@acme.test',
      res.json.csrf_token,
    ]);
  });

  it('answers a wrong password and an unknown email alike, with no cookie', async () => {
    const wrong = await new Browser(h).login('owner@acme.test', 'not the password');
    const unknown = await new Browser(h).login('nobody@acme.test', 'not the password');
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.headers.getSetCookie()).toEqual([]);
    }
    expect(wrong.json).toEqual(unknown.json);
    expect(wrong.json.code).toBe('invalid_credentials');
    const anonymous = await new Browser(h).request('GET', '/v1/auth/session');
    expect([anonymous.status, anonymous.json.code]).toEqual([401, 'unauthorized']);
  });

  it('throttles an email after 5 consecutive failures with 429 and Retry-After, even for the right password', async () => {
    await tenantWithOwner(h, 'Throttled', 'victim@acme.test', PASSWORD);
    const b = new Browser(h);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await b.login('victim@acme.test', `guess number ${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const throttled = await b.login('victim@acme.test', PASSWORD);
    expect([throttled.status, throttled.json.code]).toEqual([429, 'login_throttled']);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(60);
    expect(throttled.headers.getSetCookie()).toEqual([]);
    // Another account from the same address is not locked out.
    expect((await b.login('owner@acme.test', PASSWORD)).status).toBe(200);
  });

  it('a success resets the consecutive failures', async () => {
    await tenantWithOwner(h, 'Forgetful', 'forgetful@acme.test', PASSWORD);
    const b = new Browser(h);
    for (let i = 0; i < 4; i++) expect((await b.login('forgetful@acme.test', 'wrong wrong')).status).toBe(401);
    expect((await b.login('forgetful@acme.test', PASSWORD)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await b.login('forgetful@acme.test', 'wrong wrong')).status).toBe(401);
    expect((await b.login('forgetful@acme.test', PASSWORD)).status).toBe(200);
  });

  it('rotates the session id at login and ends it at logout', async () => {
    const b = new Browser(h);
    await b.login('owner@acme.test', PASSWORD);
    const first = b.cookie!;
    await b.login('owner@acme.test', PASSWORD);
    expect(b.cookie).not.toBe(first);
    const stale = new Browser(h);
    stale.cookie = first;
    expect((await stale.request('GET', '/v1/auth/session')).status).toBe(401);

    expect((await b.request('POST', '/v1/auth/logout', { csrf: false })).json.code).toBe('csrf_failed');
    const kept = b.cookie!;
    const out = await b.request('POST', '/v1/auth/logout');
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie().join()).toMatch(/agentry_session=;.*Max-Age=0/);
    expect(b.cookie).toBeUndefined();
    // The server forgot it: replaying the old cookie is refused everywhere.
    const replay = new Browser(h);
    replay.cookie = kept;
    expect((await replay.request('GET', '/v1/auth/session')).status).toBe(401);
    const agents = await replay.request('GET', '/v1/agents', { tenant: tenant.id });
    expect([agents.status, agents.json.code]).toEqual([401, 'unauthorized']);
  });

  it('refuses an expired session', async () => {
    const b = new Browser(h);
    const session = await b.login('owner@acme.test', PASSWORD);
    expect((await b.request('GET', '/v1/agents', { tenant: tenant.id })).status).toBe(200);
    await fixtureSql(
      h,
      sql`update user_sessions set expires_at = now() - interval '1 second' where user_id = ${session.json.user.id}`,
    );
    expect((await b.request('GET', '/v1/auth/session')).status).toBe(401);
    expect((await b.request('GET', '/v1/agents', { tenant: tenant.id })).status).toBe(401);
  });

  it('needs the CSRF header on unsafe methods, not on GET', async () => {
    const b = new Browser(h);
    await b.login('owner@acme.test', PASSWORD);
    const body = { config: seedConfig() };
    const missing = await b.request('POST', '/v1/agents', { tenant: tenant.id, body, csrf: false });
    expect([missing.status, missing.json.code]).toEqual([403, 'csrf_failed']);
    const wrong = await b.request('POST', '/v1/agents', { tenant: tenant.id, body, csrf: 'x'.repeat(43) });
    expect([wrong.status, wrong.json.code]).toEqual([403, 'csrf_failed']);
    expect((await call(h, 'GET', '/v1/agents', { key: tenant.key })).json.data).toHaveLength(0);
    expect((await b.request('GET', '/v1/agents', { tenant: tenant.id, csrf: false })).status).toBe(200);
    const created = await b.request('POST', '/v1/agents', { tenant: tenant.id, body });
    expect(created.status).toBe(201);
    // Audited as the user.
    const events = await call(h, 'GET', '/v1/audit-events', { key: tenant.key });
    const event = events.json.data.find((e: any) => e.action === 'agent.created');
    expect(event.actor).toMatchObject({ type: 'user', email: 'owner@acme.test' });
  });

  it('needs a tenant the user belongs to, per request', async () => {
    const other = await tenantWithOwner(h, 'Other', 'other@acme.test', PASSWORD);
    const b = new Browser(h);
    await b.login('owner@acme.test', PASSWORD);
    const none = await b.request('GET', '/v1/agents');
    expect([none.status, none.json.code]).toEqual([403, 'tenant_not_selected']);
    const before = (await call(h, 'GET', '/v1/agents', { key: other.key })).json.data.length;
    const foreign = await b.request('POST', '/v1/agents', { tenant: other.id, body: { config: seedConfig() } });
    expect([foreign.status, foreign.json.code]).toEqual([403, 'not_a_member']);
    const read = await b.request('GET', '/v1/agents', { tenant: other.id });
    expect([read.status, read.json.code]).toEqual([403, 'not_a_member']);
    expect((await call(h, 'GET', '/v1/agents', { key: other.key })).json.data).toHaveLength(before);
  });

  it('an Authorization header wins over the cookie', async () => {
    const b = new Browser(h);
    await b.login('owner@acme.test', PASSWORD);
    const res = await b.request('GET', '/v1/agents', { headers: { authorization: 'Bearer sk_not_a_key' } });
    expect([res.status, res.json.code]).toEqual([401, 'unauthorized']);
    const keyed = await b.request('POST', '/v1/agents', {
      csrf: false,
      headers: { authorization: `Bearer ${tenant.key}` },
      body: { config: seedConfig() },
    });
    expect(keyed.status).toBe(201);
  });

  it('records logins in the audit log and never shows a password or its hash', async () => {
    const b = new Browser(h);
    await b.login('owner@acme.test', PASSWORD);
    await b.request('GET', '/v1/auth/session');
    await b.request('GET', '/v1/members', { tenant: tenant.id });
    const events = await call(h, 'GET', '/v1/audit-events', { key: tenant.key });
    expect(events.json.data.find((e: any) => e.action === 'user.login').actor).toMatchObject({
      type: 'user',
      email: 'owner@acme.test',
    });
    const everything = [...b.seen, ...tenant.owner.seen, JSON.stringify(events.json)].join('\n');
    expect(everything).not.toContain(PASSWORD);
    expect(everything).not.toMatch(/argon2|password_hash|passwordHash/);
  });

  it('refuses sign-in requests a browser marks as cross-site', async () => {
    const res = await new Browser(h).login('owner@acme.test', PASSWORD, { 'sec-fetch-site': 'cross-site' });
    expect([res.status, res.json.code]).toEqual([403, 'csrf_failed']);
  });

  // Last: it uses up this address's failure budget.
  it('throttles an address guessing many accounts', async () => {
    const b = new Browser(h);
    let res = await b.login('nobody-0@acme.test', 'guess');
    for (let i = 1; i <= 100 && res.status === 401; i++) res = await b.login(`nobody-${i}@acme.test`, 'guess');
    expect([res.status, res.json.code]).toEqual([429, 'login_throttled']);
    expect((await b.login('owner@acme.test', PASSWORD)).status).toBe(429);
    // Operators are unaffected.
    expect((await call(h, 'GET', `/v1/tenants/${tenant.id}`, { key: ADMIN_TOKEN })).status).toBe(200);
  }, 60_000);
});
