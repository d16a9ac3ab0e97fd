import { agents, createConversation, withSystemScope } from '@agentry/db';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, type Harness, rowCounts, seedConfig, startHarness } from '../test-support/harness.ts';

/** The checks of conversation create and message POST, in their order (one statement reads what they need). */
describe.each(['embedded', 'embedded-postgres'] as const)('conversation and message checks (%s)', (mode) => {
  let h: Harness;
  let key: string;
  let published: string;
  let draft: string;
  const ORIGIN = 'https://shop.example';

  const create = (body: unknown, as = key) => call(h, 'POST', '/v1/conversations', { key: as, body });
  const send = (id: string, body: unknown, as = key) =>
    call(h, 'POST', `/v1/conversations/${id}/messages`, { key: as, body });
  const answer = (res: { status: number; json: { code?: string } }) => [res.status, res.json.code];
  /** A publishable key's call (it needs an allowed origin). */
  const visitor = (pk: string, path: string, body: unknown) =>
    fetch(`${h.platform.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pk}`, 'content-type': 'application/json', origin: ORIGIN },
      body: JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, json: await res.json() }));

  beforeAll(async () => {
    h = await startHarness(mode, 'openai');
    key = await createTenant(h, 'A');
    published = (await call(h, 'POST', '/v1/agents', { key, body: { config: seedConfig() } })).json.id;
    draft = (await call(h, 'POST', '/v1/agents', { key, body: { config: seedConfig(), publish: false } })).json.id;
  }, 60_000);
  afterAll(() => h?.close());

  it('answers create with the agent’s checks in order, and writes nothing when one fails', async () => {
    const before = await rowCounts(h);
    expect(answer(await create({ agent_id: 'nope' }))).toEqual([404, 'agent_not_found']);
    expect(answer(await create({ agent_id: crypto.randomUUID() }))).toEqual([404, 'agent_not_found']);
    // A named version that does not exist wins over "not published".
    expect(answer(await create({ agent_id: draft, agent_version: 2 }))).toEqual([404, 'agent_version_not_found']);
    expect(answer(await create({ agent_id: published, agent_version: 9 }))).toEqual([404, 'agent_version_not_found']);
    expect(answer(await create({ agent_id: draft }))).toEqual([409, 'agent_not_published']);
    const other = await createTenant(h, 'B');
    expect(answer(await create({ agent_id: published }, other))).toEqual([404, 'agent_not_found']);
    expect(await rowCounts(h)).toEqual(before);

    const pinned = await create({ agent_id: draft, agent_version: 1 });
    expect([pinned.status, pinned.json.agent_version]).toEqual([201, 1]);
    const following = await create({ agent_id: published, context: { userId: 'u1' } });
    expect([following.status, following.json.agent_version, following.json.context]).toEqual([
      201,
      null,
      { userId: 'u1' },
    ]);
  });

  it('hides other agents from a publishable key before any version check', async () => {
    const pk = (
      await call(h, 'POST', '/v1/api-keys', {
        key,
        body: { kind: 'publishable', agents: [published], allowed_origins: [ORIGIN] },
      })
    ).json.key;
    expect(answer(await visitor(pk, '/v1/conversations', { agent_id: draft, agent_version: 9 }))).toEqual([
      404,
      'agent_not_found',
    ]);
    const own = await visitor(pk, '/v1/conversations', { agent_id: published, context: { userId: 'claimed' } });
    // A visitor's claimed userId is dropped (no verified end-user token).
    expect([own.status, own.json.context]).toEqual([201, {}]);
    const foreign = (await create({ agent_id: draft, agent_version: 1 })).json.id;
    expect(answer(await visitor(pk, `/v1/conversations/${foreign}/messages`, { content: 'hi' }))).toEqual([
      404,
      'conversation_not_found',
    ]);
    // Someone else's conversation of an allowed agent is hidden too.
    const owned = (await create({ agent_id: published, context: { userId: 'u2' } })).json.id;
    expect(answer(await visitor(pk, `/v1/conversations/${owned}/messages`, { content: 'hi' }))).toEqual([
      404,
      'conversation_not_found',
    ]);
  });

  it('answers a message: 404 before the body, then the body, then agent_not_published', async () => {
    expect(answer(await send(crypto.randomUUID(), { nope: 1 }))).toEqual([404, 'conversation_not_found']);
    expect(answer(await send('nope', { nope: 1 }))).toEqual([404, 'conversation_not_found']);
    const other = await createTenant(h, 'C');
    const mine = (await create({ agent_id: published })).json.id;
    expect(answer(await send(mine, { nope: 1 }, other))).toEqual([404, 'conversation_not_found']);

    // A conversation following an agent that has no published version (not creatable through the API).
    const conversation = await withSystemScope(h.platform.database.db, 'test: the draft agent’s tenant', (tx) =>
      tx.select({ tenantId: agents.tenantId }).from(agents).where(eq(agents.id, draft)),
    ).then(([row]) =>
      createConversation(h.platform.database.db, {
        tenantId: row!.tenantId,
        agentId: draft,
        agentVersion: null,
        context: {},
      }),
    );
    const before = await rowCounts(h);
    expect((await send(conversation.id, { nope: 1 })).status).toBe(422);
    expect(answer(await send(conversation.id, { content: 'hi' }))).toEqual([409, 'agent_not_published']);
    expect(await rowCounts(h)).toEqual(before);

    h.llm.enqueue({ type: 'reply', text: 'Hello from the draft' });
    const pinned = (await create({ agent_id: draft, agent_version: 1 })).json.id;
    expect((await send(pinned, { content: 'hi' })).json).toMatchObject({ status: 'completed', agent_version: 1 });
  });
});
