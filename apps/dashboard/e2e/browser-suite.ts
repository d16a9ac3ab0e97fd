import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromiumLaunchOptions } from '@agentry/testkit';
import { afterAll, describe, it } from 'vitest';
import { invitationToken } from '../../api/src/test-support/accounts.ts';
import { ADMIN_TOKEN, call, type Harness } from '../../api/src/test-support/harness.ts';

/** Debian's Chromium, which every browser test drives. */
export const CHROMIUM = chromiumLaunchOptions().executablePath;

/**
 * A tenant made by the platform operator, its owner's invitation accepted with `password`, and the
 * owner signed in through the API: the tenant's root key and the session cookie.
 *
 * @example
 * const { key, session } = await signedInOwner(h, { tenant: 'Acme', email: 'o@acme.example', password: 'pw…', name: 'Ola' });
 */
export async function signedInOwner(
  h: Harness,
  owner: { tenant: string; email: string; password: string; name: string },
): Promise<{ key: string; session: string }> {
  const tenant = await call(h, 'POST', '/v1/tenants', {
    key: ADMIN_TOKEN,
    body: { name: owner.tenant, owner_email: owner.email },
  });
  assert.equal(tenant.status, 201, JSON.stringify(tenant.json));
  const token = await invitationToken(h, owner.email, tenant.json.owner_invitation);
  const accepted = await call(h, 'POST', '/v1/auth/accept-invitation', {
    body: { token, password: owner.password, name: owner.name },
  });
  assert.equal(accepted.status, 200, JSON.stringify(accepted.json));
  const login = await fetch(`${h.platform.url}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: owner.email, password: owner.password }),
  });
  assert.equal(login.status, 200);
  const session = /agentry_session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
  assert.ok(session, 'the login set the session cookie');
  return { key: tenant.json.api_key.key, session };
}

/**
 * One browser walk-through as a vitest suite: skipped with a printed notice when Chromium is
 * missing, and `cleanup` (harness, browser, …) run in reverse after it, whatever happened.
 *
 * @example
 * browserSuite('dashboard flows e2e', 'building a flow…', 'builds …', main, cleanup);
 */
export function browserSuite(
  tag: string,
  title: string,
  test: string,
  run: () => Promise<void>,
  cleanup: Array<() => Promise<unknown> | unknown>,
  timeoutMs = 180_000,
): void {
  const hasChromium = existsSync(CHROMIUM);
  if (!hasChromium) {
    console.warn(
      `[${tag}] NOTICE: no Chromium at ${CHROMIUM}: this browser test is SKIPPED (apt-get install -y chromium).`,
    );
  }
  describe.runIf(hasChromium)(title, () => {
    afterAll(async () => {
      for (const fn of cleanup.reverse()) await Promise.resolve(fn()).catch(() => {});
    });
    it(test, run, timeoutMs);
  });
}
