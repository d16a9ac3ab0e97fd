import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, call, type Harness, rowCounts, seedConfig, startHarness } from '../test-support/harness.ts';

describe('operator tenant settings: suspension, private-network allowlist, quotas, rate limits', () => {
  let h: Harness;
  beforeAll(async () => {
    // No platform-wide allowlist: loopback tools work only for a tenant the operator allows.
    h = await startHarness('embedded', 'openai', { env: { EGRESS_ALLOWLIST: '' } });
  }, 60_000);
  afterAll(() => h?.close());

  const newTenant = async (name: string) => {
    const res = await call(h, 'POST', '/v1/tenants', { key: ADMIN_TOKEN, body: { name } });
    return { id: res.json.id as string, key: res.json.api_key.key as string };
  };
  const patch = (id: string, body: unknown) => call(h, 'PATCH', `/v1/tenants/${id}`, { key: ADMIN_TOKEN, body });
  const chatSetup = async (key: string) => {
    const config = seedConfig();
    config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    const agent = await call(h, 'POST', '/v1/agents', { key, body: { config } });
    return (await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agent.json.id } })).json.id as string;
  };

  it('a tenant’s own allowlist lets its tools reach a private address; others stay refused', async () => {
    const t = await newTenant('Intranet Co');
    const conv = await chatSetup(t.key);
    const book = () => {
      h.llm.enqueue(
        { type: 'reply', toolCalls: [{ name: 'save_customer_information', arguments: { email: 'a@b.co' } }] },
        { type: 'reply', text: 'done' },
      );
      return call(h, 'POST', `/v1/conversations/${conv}/messages`, { key: t.key, body: { content: 'a@b.co' } });
    };
    const refused = await book();
    expect(refused.json.tool_calls[0]).toMatchObject({ is_error: true, output: { error: 'egress_forbidden_address' } });
    expect(h.endpoint.requests).toHaveLength(0);

    const bad = await patch(t.id, { egress_allowlist: ['not a host!'] });
    expect([bad.status, bad.json.code, bad.json.errors[0].path]).toEqual([
      422,
      'validation_failed',
      '/egress_allowlist/0',
    ]);
    expect((await patch(t.id, { egress_allowlist: ['127.0.0.1'] })).json.egress_allowlist).toEqual(['127.0.0.1']);
    const allowed = await book();
    expect(allowed.json.tool_calls[0].is_error).toBe(false);
    expect(h.endpoint.requests).toHaveLength(1);
    // Only the operator sets it.
    expect((await call(h, 'PATCH', `/v1/tenants/${t.id}`, { key: t.key, body: { egress_allowlist: [] } })).status).toBe(
      401,
    );
  });

  it('enforces a daily run quota with 429 quota_exceeded, writing nothing', async () => {
    const t = await newTenant('Small plan');
    const conv = await chatSetup(t.key);
    await patch(t.id, { daily_run_limit: 1 });
    h.llm.enqueue({ type: 'reply', text: 'first' });
    expect(
      (await call(h, 'POST', `/v1/conversations/${conv}/messages`, { key: t.key, body: { content: 'hi' } })).json.reply,
    ).toBe('first');
    const before = await rowCounts(h);
    const over = await call(h, 'POST', `/v1/conversations/${conv}/messages`, {
      key: t.key,
      body: { content: 'again' },
    });
    expect([over.status, over.json.code, over.json.runs_today]).toEqual([429, 'quota_exceeded', 1]);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await rowCounts(h)).toEqual(before);
    await patch(t.id, { daily_run_limit: null });
  });

  it('rate-limits a tenant with 429 and Retry-After', async () => {
    const t = await newTenant('Chatty');
    await patch(t.id, { requests_per_minute: 3 });
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 5; i++) {
      last = await call(h, 'GET', '/v1/agents', { key: t.key });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(last!.json.code).toBe('rate_limited');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('suspends and deletes tenants', async () => {
    const t = await newTenant('Leaving');
    expect((await patch(t.id, { status: 'suspended' })).json.status).toBe('suspended');
    expect((await call(h, 'GET', '/v1/agents', { key: t.key })).status).toBe(401);
    await patch(t.id, { status: 'active' });
    expect((await call(h, 'GET', '/v1/agents', { key: t.key })).status).toBe(200);
    expect((await call(h, 'DELETE', `/v1/tenants/${t.id}`, { key: ADMIN_TOKEN })).status).toBe(204);
    expect((await call(h, 'GET', `/v1/tenants/${t.id}`, { key: ADMIN_TOKEN })).status).toBe(404);
    expect((await call(h, 'GET', '/v1/agents', { key: t.key })).status).toBe(401);
  });
});
