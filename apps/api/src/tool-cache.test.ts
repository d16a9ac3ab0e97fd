import { randomBytes } from 'node:crypto';
import { testServices } from '@agentry/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, call, type Harness, readSse, runModes, startHarness } from './test-support/harness.ts';

/**
 * Cached tool results (issue 19), end to end: the fake model calls a tool with `cache: { ttl }`
 * twice and the recording endpoint sees one request; the second result is marked cached in the
 * run's events and steps. Embedded: the in-process cache; production: the worker's Redis cache,
 * scanned for the tenant secret the request carried.
 */

const modes = runModes('tool-cache');

const SECRET = `sk-live-${randomBytes(12).toString('hex')}`;
const TTL = 3;

describe.each(modes)('cached tool results (%s)', (mode) => {
  let h: Harness;
  const keys: string[] = [];
  let agentIds: string[] = [];

  const config = () => ({
    basic_settings: { name: 'Order desk', description: 'Looks up orders' },
    action_books: [{ condition: 'The customer asks about an order', action: 'Look it up', tools: ['order'] }],
    tools: [
      {
        name: 'order',
        description: 'One order by id',
        parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        endpoint: { url: `${h.endpoint.url}/orders/{{id}}`, headers: { 'X-Api-Key': '{{secrets.API_KEY}}' } },
        cache: { ttl: TTL },
      },
    ],
  });

  beforeAll(async () => {
    h = await startHarness(mode, 'openai', { env: { SECRETS_KEY: randomBytes(32).toString('base64') } });
    for (const name of ['Tenant A', 'Tenant B']) {
      const tenant = await call(h, 'POST', '/v1/tenants', { key: ADMIN_TOKEN, body: { name } });
      const key = tenant.json.api_key.key as string;
      keys.push(key);
      // The same secret in both tenants: their requests are identical, only the tenant differs.
      await call(h, 'PUT', '/v1/secrets/API_KEY', { key, body: { value: SECRET } });
    }
    agentIds = [];
    for (const key of keys) {
      const agent = await call(h, 'POST', '/v1/agents', { key, body: { config: config() } });
      expect(agent.status, JSON.stringify(agent.json)).toBe(201);
      agentIds.push(agent.json.id);
    }
    h.endpoint.respondWith((req) => ({
      headers: req.path.startsWith('/orders/NS') ? { 'cache-control': 'no-store' } : ({} as Record<string, string>),
      body: { id: req.path.split('/').pop(), status: 'shipped', key_echo: req.headers['x-api-key'] },
    }));
  }, 120_000);
  afterAll(() => h?.close());

  /** One message whose run calls `order` once per id (one step each), then answers. */
  async function ask(tenant: 0 | 1, ids: string[]) {
    const key = keys[tenant]!;
    h.llm.enqueue(...ids.map((id) => ({ type: 'reply' as const, toolCalls: [{ name: 'order', arguments: { id } }] })), {
      type: 'reply',
      text: 'Your order has shipped.',
    });
    const conv = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agentIds[tenant] } });
    const sent = await call(h, 'POST', `/v1/conversations/${conv.json.id}/messages`, {
      key,
      body: { content: 'Where is my order?' },
    });
    expect(sent.json.status, JSON.stringify(sent.json)).toBe('completed');
    return sent.json.id as string;
  }

  const endpointCalls = (id: string) => h.endpoint.requests.filter((r) => r.path === `/orders/${id}`).length;

  it('sends an identical request once within the TTL and marks the reused result cached', async () => {
    const runId = await ask(0, ['A1', 'A1']);
    expect(endpointCalls('A1')).toBe(1);
    expect(h.endpoint.requests.find((r) => r.path === '/orders/A1')?.headers['x-api-key']).toBe(SECRET);

    const run = (await call(h, 'GET', `/v1/runs/${runId}`, { key: keys[0] })).json;
    const records = run.steps.flatMap((s: { toolCalls: Array<{ cached?: boolean }> }) => s.toolCalls);
    expect(records.map((r: { cached?: boolean }) => r.cached)).toEqual([undefined, true]);
    // Both results are the same (masked) output: the echoed secret is not in it.
    expect(run.tool_calls[0].output).toEqual(run.tool_calls[1].output);
    expect(JSON.stringify(run.tool_calls)).not.toContain(SECRET);

    const events = await readSse(
      await fetch(`${h.platform.url}/v1/runs/${runId}/events`, {
        headers: { authorization: `Bearer ${keys[0]}`, accept: 'text/event-stream' },
      }),
    );
    const results = events.filter((e) => e.event === 'tool-result').map((e) => e.data.cached);
    expect(results).toEqual([undefined, true]);
  });

  it('calls the endpoint again after the TTL', async () => {
    await ask(0, ['T1']);
    await new Promise((resolve) => setTimeout(resolve, TTL * 1000 + 300));
    await ask(0, ['T1']);
    expect(endpointCalls('T1')).toBe(2);
  });

  it('never shares a response between tenants', async () => {
    await ask(0, ['S1']);
    await ask(1, ['S1']);
    expect(endpointCalls('S1')).toBe(2);
    await ask(1, ['S1']);
    expect(endpointCalls('S1')).toBe(2);
  });

  it('sends every call when the endpoint answers Cache-Control: no-store', async () => {
    await ask(0, ['NS1', 'NS1']);
    expect(endpointCalls('NS1')).toBe(2);
  });

  it('refuses cache on a tool that is not idempotent at upload, naming the field', async () => {
    const refused = config();
    Object.assign(refused.tools[0]!.endpoint, { method: 'POST', body: { id: '{{id}}' } });
    const res = await call(h, 'POST', '/v1/agents', { key: keys[0], body: { config: refused } });
    expect([res.status, res.type, res.json.code]).toEqual([422, 'application/problem+json', 'validation_failed']);
    expect(res.json.errors).toEqual([
      expect.objectContaining({ path: '/tools/0/cache', code: 'cache_not_idempotent' }),
    ]);
  });

  // Only the production mode has a Redis cache (embedded keeps it in memory): defined there only.
  if (mode === 'production')
    it('keeps the secret out of every Redis key and value of the cache', async () => {
      const redis = new Redis(testServices.redisUrl);
      try {
        const cacheKeys = await redis.keys(`${h.env.QUEUE_PREFIX}:tool-cache:*`);
        expect(cacheKeys.length).toBeGreaterThan(0);
        for (const key of cacheKeys) {
          const value = (await redis.type(key)) === 'string' ? await redis.get(key) : await redis.zrange(key, 0, -1);
          expect(key).not.toContain(SECRET);
          expect(JSON.stringify(value)).not.toContain(SECRET);
        }
      } finally {
        redis.disconnect();
      }
    });
});
