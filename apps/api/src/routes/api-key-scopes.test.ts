import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, hasScope } from '../http/scopes.ts';
import { tenantWithOwner } from '../test-support/accounts.ts';
import { type CallResult, call, type Harness, startHarness } from '../test-support/harness.ts';

type Key = { id: string; key: string };

/**
 * Every key route with every scope: a key may create, list and revoke keys only as far as its
 * own scopes reach, and the tenant's full-scope key only falls to another full-scope key or an
 * owner's session. Refusals are audited.
 */
describe('API key routes by caller scope', () => {
  let h: Harness;
  let tenant: Awaited<ReturnType<typeof tenantWithOwner>>;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai', { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    tenant = await tenantWithOwner(h, 'Acme', 'owner@acme.test', 'correct horse battery');
  }, 60_000);
  afterAll(() => h?.close());

  const secretKey = async (scopes: string[]): Promise<Key> => {
    const res = await call(h, 'POST', '/v1/api-keys', { key: tenant.key, body: { kind: 'secret', scopes } });
    if (res.status !== 201) throw new Error(`key creation failed: ${JSON.stringify(res.json)}`);
    return { id: res.json.id, key: res.json.key };
  };
  const works = async (k: Key) => (await call(h, 'GET', '/v1/api-keys', { key: k.key })).status !== 401;
  const outcome = (res: CallResult) => [res.status, res.status < 300 ? 'ok' : res.json.code];
  /** The scope-gate answer for a caller without the route's scope, else `allowed`. */
  const gated = (scopes: string[], needed: string, allowed: Array<number | string>) =>
    hasScope(scopes, needed) ? allowed : [403, 'insufficient_scope'];
  const auditEvents = async () => {
    const events: any[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${cursor}` : '';
      const page = await call(h, 'GET', `/v1/audit-events?limit=100${query}`, { key: tenant.key });
      events.push(...page.json.data);
      cursor = page.json.next_cursor;
    } while (cursor);
    return events;
  };

  it('refuses the reported case: an `api-keys:write` key cannot revoke the tenant’s root key', async () => {
    const narrow = await secretKey(['api-keys:write']);
    const rootId = (await call(h, 'GET', '/v1/api-keys', { key: tenant.key })).json.data.find(
      (k: any) => k.scopes.includes('*') && k.prefix === tenant.key.slice(0, 11),
    ).id;
    const res = await call(h, 'DELETE', `/v1/api-keys/${rootId}`, { key: narrow.key });
    expect(outcome(res)).toEqual([403, 'forbidden']);
    expect(res.json.detail ?? res.json.message).toMatch(/`\*`/);
    expect((await call(h, 'GET', '/v1/agents', { key: tenant.key })).status).toBe(200);
  });

  for (const scope of ALL_SCOPES) {
    it(`holds a \`${scope}\` key to its own scopes on every key route`, async () => {
      // The key alone, as it reaches the routes' scope gate.
      const alone = await secretKey([scope]);
      expect(outcome(await call(h, 'GET', '/v1/api-keys', { key: alone.key }))).toEqual(
        gated([scope], 'api-keys:read', [200, 'ok']),
      );
      expect(
        outcome(await call(h, 'POST', '/v1/api-keys', { key: alone.key, body: { kind: 'secret', scopes: [scope] } })),
      ).toEqual(gated([scope], 'api-keys:write', [201, 'ok']));
      const full = await secretKey(['*']);
      expect(outcome(await call(h, 'DELETE', `/v1/api-keys/${full.id}`, { key: alone.key }))).toEqual(
        gated([scope], 'api-keys:write', scope === '*' ? [200, 'ok'] : [403, 'forbidden']),
      );
      expect(await works(full)).toBe(scope !== '*');

      // With `api-keys:write` added, past the gate: only what its scopes cover.
      const scopes = [...new Set([scope, 'api-keys:write'])];
      const caller = await secretKey(scopes);
      const root = await secretKey(['*']);
      const uncovered = ALL_SCOPES.find((s) => s !== '*' && !hasScope(scopes, s));
      const wider = uncovered ? await secretKey([uncovered]) : undefined;
      const same = await secretKey([scope]);
      const wide = await call(h, 'POST', '/v1/api-keys', { key: caller.key, body: { kind: 'secret', scopes: ['*'] } });
      expect(outcome(wide)).toEqual(scope === '*' ? [201, 'ok'] : [403, 'forbidden']);
      const rootRes = await call(h, 'DELETE', `/v1/api-keys/${root.id}`, { key: caller.key });
      expect(outcome(rootRes)).toEqual(scope === '*' ? [200, 'ok'] : [403, 'forbidden']);
      expect(await works(root)).toBe(scope !== '*');
      if (wider) {
        const res = await call(h, 'DELETE', `/v1/api-keys/${wider.id}`, { key: caller.key });
        expect(outcome(res)).toEqual([403, 'forbidden']);
        expect(await works(wider)).toBe(true);
      }
      expect(outcome(await call(h, 'DELETE', `/v1/api-keys/${same.id}`, { key: caller.key }))).toEqual([200, 'ok']);
      expect(await works(same)).toBe(false);

      // Every refusal past the gate is in the audit log, with the caller as actor.
      const refused = (await auditEvents()).filter((e) => e.actor.api_key_id === caller.id);
      const actions = refused.map((e) => `${e.action} ${e.target.id}`).sort();
      const expected =
        scope === '*'
          ? [`api_key.created ${wide.json.id}`, `api_key.revoked ${root.id}`, `api_key.revoked ${same.id}`]
          : [
              `api_key.create_refused ${tenant.id}`,
              `api_key.revoke_refused ${root.id}`,
              ...(wider ? [`api_key.revoke_refused ${wider.id}`] : []),
              `api_key.revoked ${same.id}`,
            ];
      expect(actions).toEqual(expected.sort());
    });
  }

  it('lets an owner’s dashboard session revoke a full-scope key, and records who did', async () => {
    const full = await secretKey(['*']);
    const res = await tenant.owner.request('DELETE', `/v1/api-keys/${full.id}`, { tenant: tenant.id });
    expect([res.status, res.json.revoked_at]).toEqual([200, expect.any(String)]);
    expect(await works(full)).toBe(false);
    const event = (await auditEvents()).find((e) => e.action === 'api_key.revoked' && e.target.id === full.id);
    expect(event.actor).toMatchObject({ type: 'user', email: 'owner@acme.test' });
  });
});
