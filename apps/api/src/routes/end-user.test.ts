import { CompactSign, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, seedConfig, startHarness, visitorCalls } from '../test-support/harness.ts';

const SECRET = 'end-user-signing-secret-0123456789abcdef';
const ORIGIN = 'https://shop.example';

/** A token with exactly these claims, signed with the tenant's secret (whatever their types). */
function rawToken(claims: string): Promise<string> {
  return new CompactSign(new TextEncoder().encode(claims))
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(SECRET));
}

async function token(sub: string, secret = SECRET, expiresIn = '10m'): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(secret));
}

describe('signed end-user identity (X-End-User-Token)', () => {
  let h: Harness;
  let key: string;
  let pk: string;
  let agentId: string;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai');
    key = await createTenant(h);
    await call(h, 'PUT', '/v1/secrets/END_USER_JWT_SECRET', { key, body: { value: SECRET } });
    const config = seedConfig();
    config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    config.tools[0].endpoint.body.userId = '{{context.userId}}';
    agentId = (await call(h, 'POST', '/v1/agents', { key, body: { config } })).json.id;
    pk = (
      await call(h, 'POST', '/v1/api-keys', {
        key,
        body: { kind: 'publishable', agents: [agentId], allowed_origins: [ORIGIN] },
      })
    ).json.key;
  }, 60_000);
  afterAll(() => h?.close());

  const visitor = visitorCalls(() => ({ url: h.platform.url, key: pk }), ORIGIN);

  it('trusts userId only from a verified token, and keeps a user’s conversations theirs', async () => {
    const ada = await token('user-42');
    const conv = await visitor('POST', '/v1/conversations', ada, {
      agent_id: agentId,
      context: { userId: 'someone-else' },
    });
    expect(conv.status).toBe(201);
    expect(conv.json.context.userId).toBe('user-42');
    h.llm.enqueue(
      { type: 'reply', toolCalls: [{ name: 'save_customer_information', arguments: { email: 'ada@example.com' } }] },
      { type: 'reply', text: 'Saved.' },
    );
    const sent = await visitor('POST', `/v1/conversations/${conv.json.id}/messages`, ada, {
      content: 'ada@example.com',
    });
    expect(sent.json.status).toBe('completed');
    expect(h.endpoint.requests.at(-1)?.json).toMatchObject({ userId: 'user-42' });

    expect((await visitor('GET', `/v1/conversations/${conv.json.id}`, ada)).status).toBe(200);
    expect((await visitor('GET', `/v1/conversations/${conv.json.id}`, await token('user-7'))).status).toBe(404);
    expect((await visitor('GET', `/v1/conversations/${conv.json.id}`)).status).toBe(404);
    // The tenant's own servers (secret key) see every conversation.
    expect((await call(h, 'GET', `/v1/conversations/${conv.json.id}`, { key })).status).toBe(200);

    const anonymous = await visitor('POST', '/v1/conversations', undefined, {
      agent_id: agentId,
      context: { userId: 'user-42' },
    });
    expect(anonymous.json.context.userId).toBeUndefined();
  });

  it('refuses tokens that do not verify', async () => {
    for (const bad of [
      await token('user-1', 'another-secret-0123456789abcdef0123'),
      await token('user-1', SECRET, '-1m'),
      'not-a-jwt',
    ]) {
      const res = await visitor('POST', '/v1/conversations', bad, { agent_id: agentId });
      expect([res.status, res.json.code]).toEqual([401, 'invalid_end_user_token']);
    }
  });

  it('refuses a signed token whose sub is not a non-empty string of at most 256 characters, or whose exp is not finite', async () => {
    const exp = Math.floor(Date.now() / 1000) + 600;
    const cases: Array<[string, RegExp]> = [
      [`{"sub":{"id":"user-1"},"exp":${exp}}`, /`sub`/],
      [`{"sub":["user-1"],"exp":${exp}}`, /`sub`/],
      [`{"sub":42,"exp":${exp}}`, /`sub`/],
      [`{"sub":"","exp":${exp}}`, /`sub`/],
      [`{"sub":"   ","exp":${exp}}`, /`sub`/],
      [`{"sub":"${'u'.repeat(257)}","exp":${exp}}`, /`sub`/],
      [`{"sub":"user-1","exp":1e400}`, /`exp`/],
    ];
    for (const [claims, why] of cases) {
      const res = await visitor('POST', '/v1/conversations', await rawToken(claims), {
        agent_id: agentId,
      });
      expect([res.status, res.json.code], claims).toEqual([401, 'invalid_end_user_token']);
      expect(res.json.detail ?? res.json.message, claims).toMatch(why);
    }
    // At the bound it is still a user.
    const longest = await visitor(
      'POST',
      '/v1/conversations',
      await rawToken(`{"sub":"${'u'.repeat(256)}","exp":${exp}}`),
      {
        agent_id: agentId,
      },
    );
    expect([longest.status, longest.json.context?.userId]).toEqual([201, 'u'.repeat(256)]);
  });
});
