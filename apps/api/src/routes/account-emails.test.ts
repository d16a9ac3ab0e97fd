import { queryRows } from '@agentry/db/testing';
import { firstLink } from '@agentry/testkit';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountModes, Browser, fixtureSql, linkToken, tenantWithOwner } from '../test-support/accounts.ts';
import { type Harness, startHarness, TEST_PUBLIC_URL } from '../test-support/harness.ts';

const PASSWORD = 'the original password';
const NEW_PASSWORD = 'a brand new password';

describe.each(accountModes)('password reset and email confirmation (%s)', (mode) => {
  let h: Harness;
  let ip = 0;
  /** A browser from its own client address (the API trusts one proxy here), so limits per address stay apart. */
  const fromNewAddress = () => {
    const b = new Browser(h);
    const address = `198.51.100.${++ip}`;
    return {
      b,
      address,
      requestReset: (email: string) =>
        b.request('POST', '/v1/auth/password-reset', { body: { email }, headers: { 'x-forwarded-for': address } }),
    };
  };
  const confirm = (token: string, password: string) =>
    new Browser(h).request('POST', '/v1/auth/password-reset/confirm', { body: { token, password } });
  const resetToken = async (email: string) => linkToken(firstLink((await h.mail!.next(email)).text));

  beforeAll(async () => {
    h = await startHarness(mode, 'openai', { workers: 0, env: { TRUSTED_PROXIES: '1' } });
  }, 60_000);
  afterAll(() => h?.close());

  it('mails a single-use link; the new password signs in, the old one and every other session end', async () => {
    const t = await tenantWithOwner(h, 'Reset', 'owner@reset.test', PASSWORD);
    // As if a squatter had made the account through a shown link: the mailbox's owner takes it back.
    await fixtureSql(h, sql`update users set email_verified_at = null where email = 'owner@reset.test'`);
    const elsewhere = new Browser(h);
    expect((await elsewhere.login('owner@reset.test', PASSWORD)).status).toBe(200);

    const requested = await fromNewAddress().requestReset('Owner@Reset.test');
    expect(requested.status).toBe(202);
    const mail = await h.mail!.next('owner@reset.test');
    expect(mail.subject).toBe('Reset your Agentry password');
    const link = firstLink(mail.text);
    expect(link).toMatch(new RegExp(`^${TEST_PUBLIC_URL}/dashboard/#/reset-password\\?token=pwr_[A-Za-z0-9_-]{43}$`));
    const token = linkToken(link);

    const short = await confirm(token, 'short');
    expect([short.status, short.json.code, short.json.errors[0].path]).toEqual([422, 'validation_failed', '/password']);
    const reset = new Browser(h);
    const done = await reset.request('POST', '/v1/auth/password-reset/confirm', {
      body: { token, password: NEW_PASSWORD },
    });
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({ object: 'session', user: { email: 'owner@reset.test', email_verified: true } });
    expect((await reset.request('GET', '/v1/auth/session')).status).toBe(200);
    for (const ended of [t.owner, elsewhere]) {
      expect((await ended.request('GET', '/v1/auth/session')).status).toBe(401);
    }
    expect((await new Browser(h).login('owner@reset.test', PASSWORD)).status).toBe(401);
    expect((await new Browser(h).login('owner@reset.test', NEW_PASSWORD)).status).toBe(200);

    const reused = await confirm(token, 'yet another password');
    expect([reused.status, reused.json.code]).toEqual([404, 'password_reset_not_found']);
    expect((await new Browser(h).login('owner@reset.test', NEW_PASSWORD)).status).toBe(200);
    const unknown = await confirm('pwr_unknown', NEW_PASSWORD);
    expect([unknown.status, unknown.json.code]).toEqual([404, 'password_reset_not_found']);

    const actions = (await reset.request('GET', '/v1/audit-events', { tenant: t.id })).json.data.map(
      (e: any) => e.action,
    );
    expect(actions).toEqual(expect.arrayContaining(['user.password_reset_requested', 'user.password_reset']));
    // Only hashes are stored.
    const rows = await queryRows(h.platform.database.db, sql`select * from account_tokens`);
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(token.slice(4));
  });

  it('an expired link (30 minutes) sets nothing', async () => {
    await tenantWithOwner(h, 'Late', 'owner@late.test', PASSWORD);
    expect((await fromNewAddress().requestReset('owner@late.test')).status).toBe(202);
    const token = await resetToken('owner@late.test');
    const [lifetime] = await queryRows<{ m: string }>(
      h.platform.database.db,
      sql`select extract(epoch from expires_at - created_at) / 60 as m from account_tokens where email = 'owner@late.test'`,
    );
    expect(Math.round(Number(lifetime!.m))).toBe(30);
    await fixtureSql(
      h,
      sql`update account_tokens set expires_at = now() - interval '1 second' where email = 'owner@late.test'`,
    );
    const late = await confirm(token, NEW_PASSWORD);
    expect([late.status, late.json.code]).toEqual([410, 'password_reset_expired']);
    expect((await new Browser(h).login('owner@late.test', PASSWORD)).status).toBe(200);
  });

  it('an unknown email gets the same answer, as fast, and no mail', async () => {
    await tenantWithOwner(h, 'Known', 'known@same.test', PASSWORD);
    const known: Array<{ ms: number; res: Awaited<ReturnType<Browser['request']>> }> = [];
    const unknown: typeof known = [];
    for (let i = 0; i < 3; i++) {
      for (const [email, into] of [
        ['known@same.test', known],
        [`nobody${i}@same.test`, unknown],
      ] as const) {
        const started = performance.now();
        const res = await fromNewAddress().requestReset(email);
        into.push({ ms: performance.now() - started, res });
      }
    }
    const shape = (r: (typeof known)[number]['res']) => ({
      status: r.status,
      text: r.text,
      headers: [...r.headers.keys()].filter((k) => k !== 'date').sort(),
    });
    expect(unknown.map((r) => shape(r.res))).toEqual(known.map((r) => shape(r.res)));
    expect(known[0]!.res.status).toBe(202);
    // The answer waits for neither the lookup nor the mail: both kinds answer in about the same time.
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[1]!;
    expect(Math.abs(median(known.map((r) => r.ms)) - median(unknown.map((r) => r.ms)))).toBeLessThan(150);
    for (let i = 0; i < 3; i++) await h.mail!.next('known@same.test');
    expect(h.mail!.messages.filter((m) => m.to.some((to) => to.startsWith('nobody')))).toEqual([]);
  });

  it('throttles per email (5 an hour, from any address) and per client address (20 an hour), known or not', async () => {
    for (const email of ['victim@throttle.test', 'ghost@throttle.test']) {
      if (email.startsWith('victim')) await tenantWithOwner(h, 'Throttle', email, PASSWORD);
      for (let i = 0; i < 5; i++) expect((await fromNewAddress().requestReset(email)).status).toBe(202);
      const throttled = await fromNewAddress().requestReset(email);
      expect([throttled.status, throttled.json.code]).toEqual([429, 'password_reset_throttled']);
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(60);
    }
    const one = fromNewAddress();
    for (let i = 0; i < 20; i++) expect((await one.requestReset(`sweep${i}@throttle.test`)).status).toBe(202);
    const swept = await one.requestReset('sweep-last@throttle.test');
    expect([swept.status, swept.json.code]).toEqual([429, 'password_reset_throttled']);
  });

  it('an unverified user confirms their address by a mailed link', async () => {
    const t = await tenantWithOwner(h, 'Confirm', 'owner@confirm.test', PASSWORD);
    const already = await t.owner.request('POST', '/v1/auth/email-confirmation');
    expect([already.status, already.json.code]).toEqual([409, 'email_already_verified']);
    // As if the account had been made through a shown link.
    await fixtureSql(h, sql`update users set email_verified_at = null where email = 'owner@confirm.test'`);
    expect((await t.owner.request('GET', '/v1/auth/session')).json.user.email_verified).toBe(false);
    const noCsrf = await t.owner.request('POST', '/v1/auth/email-confirmation', { csrf: false });
    expect([noCsrf.status, noCsrf.json.code]).toEqual([403, 'csrf_failed']);
    expect((await t.owner.request('POST', '/v1/auth/email-confirmation')).status).toBe(202);
    const link = firstLink((await h.mail!.next('owner@confirm.test')).text);
    expect(link).toContain('/dashboard/#/confirm-email?token=vfy_');
    const confirmed = await new Browser(h).request('POST', '/v1/auth/confirm-email', {
      body: { token: linkToken(link) },
    });
    expect(confirmed.status).toBe(204);
    expect((await t.owner.request('GET', '/v1/auth/session')).json.user.email_verified).toBe(true);
    const again = await new Browser(h).request('POST', '/v1/auth/confirm-email', { body: { token: linkToken(link) } });
    expect([again.status, again.json.code]).toEqual([404, 'email_confirmation_not_found']);
  });
});
