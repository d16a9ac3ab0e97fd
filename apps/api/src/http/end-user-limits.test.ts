import { randomBytes } from 'node:crypto';
import { availableServices, deleteRedisKeys, testServices } from '@agentry/testkit';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, seedConfig, startHarness } from '../test-support/harness.ts';

const SECRET = 'end-user-signing-secret-0123456789abcdef';
const ORIGIN = 'https://shop.example';
const LIMIT = 3;

function token(sub: string): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(SECRET));
}

// Memory counters (embedded) and Redis counters shared by API processes.
const stores = availableServices().redis ? (['memory', 'redis'] as const) : (['memory'] as const);

describe.each(stores)('per-end-user rate limit (%s counters)', (store) => {
  let h: Harness;
  let key: string;
  let pk: string;
  let agentId: string;
  const prefix = `test-eu-${randomBytes(5).toString('hex')}`;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai', {
      env: {
        RATE_LIMIT_PER_END_USER_PER_MINUTE: String(LIMIT),
        TRUSTED_PROXIES: '1',
        ...(store === 'redis' ? { REDIS_URL: testServices.redisUrl, QUEUE_PREFIX: prefix } : {}),
      },
    });
    key = await createTenant(h);
    await call(h, 'PUT', '/v1/secrets/END_USER_JWT_SECRET', { key, body: { value: SECRET } });
    agentId = (await call(h, 'POST', '/v1/agents', { key, body: { config: seedConfig() } })).json.id;
    const created = await call(h, 'POST', '/v1/api-keys', {
      key,
      body: { kind: 'publishable', agents: [agentId], allowed_origins: [ORIGIN] },
    });
    pk = created.json.key;
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    if (store === 'redis') await deleteRedisKeys(prefix);
  });

  /** A widget request as it arrives through one proxy, which appended `ip` to X-Forwarded-For. */
  const visit = async (ip: string, options: { endUser?: string; claimed?: string; bearer?: string } = {}) => {
    const res = await fetch(`${h.platform.url}/v1/widget/bootstrap?agent_id=${agentId}`, {
      headers: {
        authorization: `Bearer ${options.bearer ?? pk}`,
        origin: ORIGIN,
        'x-forwarded-for': options.claimed ? `${options.claimed}, ${ip}` : ip,
        ...(options.endUser ? { 'x-end-user-token': options.endUser } : {}),
      },
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), json: await res.json() };
  };

  it('limits an anonymous visitor by publishable key and client IP, with its own code and Retry-After', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await visit('198.51.100.1')).status).toBe(200);
    const refused = await visit('198.51.100.1');
    expect([refused.status, refused.json.code]).toEqual([429, 'end_user_rate_limited']);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    // A leftmost X-Forwarded-For entry is the client's own claim: it does not buy a fresh allowance.
    expect((await visit('198.51.100.1', { claimed: '203.0.113.77' })).json.code).toBe('end_user_rate_limited');
    // Another visitor of the same site is not affected.
    expect((await visit('198.51.100.2')).status).toBe(200);
  });

  it('limits a verified end user by user id, wherever they connect from', async () => {
    const ada = await token('ada');
    for (let i = 0; i < LIMIT; i++) expect((await visit(`192.0.2.${i + 10}`, { endUser: ada })).status).toBe(200);
    expect((await visit('192.0.2.99', { endUser: ada })).json.code).toBe('end_user_rate_limited');
    // Another user behind the same address still gets through.
    expect((await visit('192.0.2.99', { endUser: await token('grace') })).status).toBe(200);
  });

  it('does not count the tenant’s own servers without an end-user token', async () => {
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await call(h, 'GET', `/v1/widget/bootstrap?agent_id=${agentId}`, { key });
      expect(res.status).toBe(200);
    }
  });

  it('is documented for the operations it applies to', async () => {
    const document = (await call(h, 'GET', '/openapi.json')).json;
    const send = document.paths['/v1/conversations/{id}/messages'].post;
    expect(send['x-error-codes']).toContain('end_user_rate_limited');
    expect(send.responses['429'].headers['Retry-After']).toBeDefined();
  });
});
