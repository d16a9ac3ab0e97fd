import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, seedConfig, startHarness } from './test-support/harness.ts';

const ORIGIN = 'https://shop.example.com';

describe('MAX_EVENT_STREAMS_PER_VISITOR (embedded)', () => {
  let h: Harness;
  let key: string;
  let pk: string;
  let runId: string;
  beforeAll(async () => {
    // One trusted proxy: X-Forwarded-For names the visitor's address.
    h = await startHarness('embedded', 'openai', { env: { MAX_EVENT_STREAMS_PER_VISITOR: '2', TRUSTED_PROXIES: '1' } });
    key = await createTenant(h);
    const config = seedConfig();
    config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    const agentId = (await call(h, 'POST', '/v1/agents', { key, body: { config } })).json.id;
    pk = (
      await call(h, 'POST', '/v1/api-keys', {
        key,
        body: { kind: 'publishable', agents: [agentId], allowed_origins: [ORIGIN] },
      })
    ).json.key;
    // A run that stays open while the test runs: its tool call does not answer.
    h.endpoint.respondWith(() => ({ status: 200, body: { saved: true }, delayMs: 30_000 }));
    h.llm.enqueue({
      type: 'reply',
      toolCalls: [{ id: 'call_hold', name: 'save_customer_information', arguments: { email: 'kim@example.com' } }],
    });
    const conversation = (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agentId } })).json.id;
    const res = await fetch(`${h.platform.url}/v1/conversations/${conversation}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ content: 'book kim@example.com' }),
    });
    runId = ((await res.json()) as { id: string }).id;
  }, 120_000);
  afterAll(() => h?.close());

  const open = (credential: string, ip: string) => {
    const controller = new AbortController();
    const response = fetch(`${h.platform.url}/v1/runs/${runId}/events`, {
      headers: {
        authorization: `Bearer ${credential}`,
        origin: ORIGIN,
        accept: 'text/event-stream',
        'x-forwarded-for': ip,
      },
      signal: controller.signal,
    });
    return { response, close: () => controller.abort() };
  };

  it('a visitor gets the cap, then 429 too_many_streams_for_visitor; others and secret keys are not held back; a closed stream frees its slot', async () => {
    const mine = [open(pk, '203.0.113.1'), open(pk, '203.0.113.1')];
    for (const stream of mine) expect((await stream.response).status).toBe(200);
    const refused = await open(pk, '203.0.113.1').response;
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toMatchObject({ code: 'too_many_streams_for_visitor', status: 429 });
    // Another visitor of the same key (another address), and the tenant's servers, still open streams.
    const other = open(pk, '198.51.100.7');
    const server = open(key, '203.0.113.1');
    expect([(await other.response).status, (await server.response).status]).toEqual([200, 200]);
    // One of the first visitor's streams closes: the next one opens.
    mine[0]!.close();
    let next = await open(pk, '203.0.113.1').response;
    for (const until = Date.now() + 10_000; next.status === 429 && Date.now() < until; ) {
      await next.body?.cancel();
      await new Promise((r) => setTimeout(r, 50));
      next = await open(pk, '203.0.113.1').response;
    }
    expect(next.status).toBe(200);
    await next.body?.cancel();
    for (const stream of [mine[1]!, other, server]) stream.close();
  }, 30_000);
});
