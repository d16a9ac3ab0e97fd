import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createConversation,
  createRunForMessage,
  getConversation,
  getRun,
  listMessages,
  newId,
  withTenantScope,
} from '../index.ts';
import { runs } from '../schema.ts';
import { tenantWithAgent } from '../testing/run-fixtures.ts';

describe.each(testDatabaseKinds())('messages and their runs on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.destroy());

  const text = (t: string) => [{ type: 'text' as const, text: t }];

  /** A conversation of a new tenant's agent, and a way to send it messages. */
  async function conversation() {
    const { tenant, agent } = await tenantWithAgent(database.db);
    const conv = await createConversation(database.db, {
      tenantId: tenant.id,
      agentId: agent.id,
      agentVersion: null,
      context: {},
    });
    const send = (message: string, conversationId = conv.id) =>
      createRunForMessage(database.db, {
        tenantId: tenant.id,
        conversationId,
        agentId: agent.id,
        agentVersion: 1,
        traceId: 'trace',
        message: { role: 'user', content: text(message) },
      });
    const runsOf = () =>
      withTenantScope(database.db, tenant.id, (tx) => tx.select().from(runs)).then((rows) =>
        rows.filter((r) => r.conversationId === conv.id),
      );
    return { tenant, conv, send, runsOf };
  }

  it('with no active run: the message joins the transcript after its last one and the run points at it', async () => {
    const { tenant, conv, send } = await conversation();
    const first = await send('one');
    expect(first.message).toMatchObject({ seq: 1, role: 'user', content: text('one'), runId: first.run.id });
    expect(first.run).toMatchObject({ status: 'queued', inputMessageId: first.message!.id, pendingInput: null });
    await withTenantScope(database.db, tenant.id, (tx) => tx.update(runs).set({ status: 'completed' }));
    const before = (await getConversation(database.db, tenant.id, conv.id))!.updatedAt;
    const second = await send('two');
    expect(second.message?.seq).toBe(2);
    expect((await getConversation(database.db, tenant.id, conv.id))!.updatedAt.getTime()).toBeGreaterThanOrEqual(
      before.getTime(),
    );
    expect((await listMessages(database.db, tenant.id, conv.id)).map((m) => [m.seq, m.runId])).toEqual([
      [1, first.run.id],
      [2, second.run.id],
    ]);
  });

  it('with an active run: the message waits on its run, and no active run is marked for cancellation', async () => {
    const { tenant, conv, send } = await conversation();
    const first = await send('one');
    const queued = await send('two');
    expect(queued.message).toBeUndefined();
    expect(queued.run).toMatchObject({ inputMessageId: null, pendingInput: text('two') });
    expect((await getRun(database.db, tenant.id, first.run.id))?.cancelRequestedAt).toBeNull();
    expect(await listMessages(database.db, tenant.id, conv.id)).toHaveLength(1);
  });

  it('answers 404 for a conversation that is not the tenant’s, and writes nothing', async () => {
    const mine = await conversation();
    const theirs = await conversation();
    await expect(mine.send('hi', theirs.conv.id)).rejects.toMatchObject({
      code: 'conversation_not_found',
      status: 404,
    });
    await expect(mine.send('hi', newId())).rejects.toMatchObject({ code: 'conversation_not_found' });
    expect(await theirs.runsOf()).toHaveLength(0);
    expect(await listMessages(database.db, theirs.tenant.id, theirs.conv.id)).toHaveLength(0);
  });

  it('serialises messages sent at once: one joins the transcript, the others wait on their runs', async () => {
    const { tenant, conv, send, runsOf } = await conversation();
    const sent = await Promise.all(Array.from({ length: 6 }, (_, i) => send(`m${i}`)));
    expect(sent.filter((s) => s.message)).toHaveLength(1);
    expect(await runsOf()).toHaveLength(6);
    expect((await listMessages(database.db, tenant.id, conv.id)).map((m) => m.seq)).toEqual([1]);
  });
});
