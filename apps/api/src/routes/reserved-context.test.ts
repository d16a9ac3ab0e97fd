import OpenAI, { BadRequestError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, rowCounts, seedConfig, startHarness } from '../test-support/harness.ts';

const ORIGIN = 'https://shop.example';
/** What the run fills itself; a caller's value would be stored though the run never reads it. */
const RESERVED = ['tenantId', 'agentId', 'conversationId', 'dialogId', 'chatbotId'];

describe('reserved (system) context names are refused wherever a caller passes context', () => {
  let h: Harness;
  let key: string;
  let pk: string;
  let agentId: string;
  beforeAll(async () => {
    h = await startHarness('embedded', 'openai');
    key = await createTenant(h);
    const config = seedConfig();
    config.context = [{ name: 'plan' }];
    agentId = (await call(h, 'POST', '/v1/agents', { key, body: { config } })).json.id;
    const created = await call(h, 'POST', '/v1/api-keys', {
      key,
      body: { kind: 'publishable', agents: [agentId], allowed_origins: [ORIGIN] },
    });
    pk = created.json.key;
  }, 60_000);
  afterAll(() => h?.close());

  /** A conversation request as a server (secret key) or the widget (publishable key) sends it. */
  const start = async (as: 'server' | 'widget', context: Record<string, unknown>) => {
    const res = await fetch(`${h.platform.url}/v1/conversations`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${as === 'server' ? key : pk}`,
        'content-type': 'application/json',
        ...(as === 'widget' ? { origin: ORIGIN } : {}),
      },
      body: JSON.stringify({ agent_id: agentId, context }),
    });
    return { status: res.status, json: await res.json() };
  };

  for (const as of ['server', 'widget'] as const) {
    it(`POST /v1/conversations (${as}): 422 invalid_context naming each reserved name, nothing stored`, async () => {
      const before = await rowCounts(h);
      for (const name of RESERVED) {
        const res = await start(as, { plan: 'gold', [name]: 'forged' });
        expect([res.status, res.json.code], name).toEqual([422, 'invalid_context']);
        expect(res.json.errors).toEqual([
          expect.objectContaining({
            path: `/context/${name}`,
            code: 'reserved_context_variable',
            message: expect.stringContaining(`\`${name}\``),
          }),
        ]);
      }
      const all = await start(as, Object.fromEntries(RESERVED.map((n) => [n, 'forged'])));
      expect(all.json.errors.map((e: { path: string }) => e.path).sort()).toEqual(
        RESERVED.map((n) => `/context/${n}`).sort(),
      );
      expect(await rowCounts(h)).toEqual(before);
      // The same context without them is fine (and userId stays the tenant's servers' to set).
      const ok = await start(as, { plan: 'gold', ...(as === 'server' ? { userId: 'user-1' } : {}) });
      expect(ok.status).toBe(201);
      expect(ok.json.context).toEqual({ plan: 'gold', ...(as === 'server' ? { userId: 'user-1' } : {}) });
    });
  }

  it('POST /v1/agents/tools/test: the same refusal, though the tester fills them itself', async () => {
    const test = (context: Record<string, unknown>) =>
      call(h, 'POST', '/v1/agents/tools/test', {
        key,
        body: { config: seedConfig(), tool: 'save_customer_information', arguments: { email: 'a@b.co' }, context },
      });
    const refused = await test({ dialogId: 'forged', plan: 'gold' });
    expect([refused.status, refused.json.code]).toEqual([422, 'invalid_context']);
    expect(refused.json.errors).toEqual([
      expect.objectContaining({ path: '/context/dialogId', code: 'reserved_context_variable' }),
    ]);
    expect((await test({ plan: 'gold' })).status).toBe(200);
  });

  it('POST /v1/chat/completions: a reserved name in metadata is an OpenAI-shaped invalid_context', async () => {
    const client = new OpenAI({ baseURL: `${h.platform.url}/v1`, apiKey: key, maxRetries: 0 });
    const before = await rowCounts(h);
    for (const name of RESERVED) {
      const refused = await client.chat.completions
        .create({ model: agentId, messages: [{ role: 'user', content: 'hi' }], metadata: { [name]: 'forged' } })
        .catch((e) => e);
      expect(refused, name).toBeInstanceOf(BadRequestError);
      expect([refused.code, refused.param]).toEqual(['invalid_context', `metadata.${name}`]);
    }
    expect(await rowCounts(h)).toEqual(before);
  });
});
