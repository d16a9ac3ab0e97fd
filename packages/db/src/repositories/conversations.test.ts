import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BusyPolicy,
  createConversation,
  createRunForMessage,
  getConversation,
  getRun,
  listMessages,
  newId,
  startRunForMessage,
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
    const send = (message: string, policy: BusyPolicy = 'enqueue', conversationId = conv.id) =>
      createRunForMessage(database.db, {
        policy,
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
    expect(first.interrupted).toEqual([]);
    await withTenantScope(database.db, tenant.id, (tx) => tx.update(runs).set({ status: 'completed' }));
    const before = (await getConversation(database.db, tenant.id, conv.id))!.updatedAt;
    const second = await send('two', 'reject');
    expect(second.message?.seq).toBe(2);
    expect((await getConversation(database.db, tenant.id, conv.id))!.updatedAt.getTime()).toBeGreaterThanOrEqual(
      before.getTime(),
    );
    expect((await listMessages(database.db, tenant.id, conv.id)).map((m) => [m.seq, m.runId])).toEqual([
      [1, first.run.id],
      [2, second.run.id],
    ]);
  });

  it('reject: 409 conversation_busy while a run is active, and nothing written', async () => {
    const { tenant, conv, send, runsOf } = await conversation();
    await send('one');
    const updatedAt = (await getConversation(database.db, tenant.id, conv.id))!.updatedAt;
    await expect(send('two', 'reject')).rejects.toMatchObject({ code: 'conversation_busy', status: 409 });
    expect(await runsOf()).toHaveLength(1);
    expect(await listMessages(database.db, tenant.id, conv.id)).toHaveLength(1);
    expect((await getConversation(database.db, tenant.id, conv.id))!.updatedAt).toEqual(updatedAt);
  });

  it('enqueue: the message waits on its run; interrupt: the same, and the active runs are marked for cancellation', async () => {
    const { tenant, conv, send } = await conversation();
    const first = await send('one');
    const queued = await send('two', 'enqueue');
    expect(queued.message).toBeUndefined();
    expect(queued.run).toMatchObject({ inputMessageId: null, pendingInput: text('two') });
    expect(queued.interrupted).toEqual([]);
    expect((await getRun(database.db, tenant.id, first.run.id))?.cancelRequestedAt).toBeNull();
    const interrupting = await send('three', 'interrupt');
    expect(interrupting.message).toBeUndefined();
    expect(interrupting.interrupted.map((r) => r.id)).toEqual([first.run.id, queued.run.id]);
    for (const id of [first.run.id, queued.run.id]) {
      expect((await getRun(database.db, tenant.id, id))?.cancelRequestedAt).toBeInstanceOf(Date);
    }
    expect((await getRun(database.db, tenant.id, interrupting.run.id))?.cancelRequestedAt).toBeNull();
    expect(await listMessages(database.db, tenant.id, conv.id)).toHaveLength(1);
  });

  it('answers 404 for a conversation that is not the tenant’s, and writes nothing', async () => {
    const mine = await conversation();
    const theirs = await conversation();
    await expect(mine.send('hi', 'enqueue', theirs.conv.id)).rejects.toMatchObject({
      code: 'conversation_not_found',
      status: 404,
    });
    await expect(mine.send('hi', 'enqueue', newId())).rejects.toMatchObject({ code: 'conversation_not_found' });
    expect(await theirs.runsOf()).toHaveLength(0);
    expect(await listMessages(database.db, theirs.tenant.id, theirs.conv.id)).toHaveLength(0);
  });

  it('looks the conversation up, decides and writes in one transaction (startRunForMessage)', async () => {
    const { tenant, conv, runsOf } = await conversation();
    const start = (conversationId: string, decide: Parameters<typeof startRunForMessage>[2]) =>
      startRunForMessage(database.db, { tenantId: tenant.id, conversationId, traceId: 'trace' }, decide);
    const plan = (policy: BusyPolicy) => async (found: Parameters<Parameters<typeof startRunForMessage>[2]>[0]) => ({
      agentId: found!.version!.agentId,
      agentVersion: found!.version!.version,
      policy,
      message: { role: 'user' as const, content: text('hello') },
    });
    // A decision that throws writes nothing (the lock it took is released with the rollback).
    await expect(
      start(conv.id, async (found) => {
        expect(found?.conversation.id).toBe(conv.id);
        expect(found?.version?.version).toBe(1);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await runsOf()).toHaveLength(0);
    // An unknown conversation is a 404 even when the decision lets it through.
    await expect(
      start(newId(), async (found) => ({
        agentId: conv.agentId,
        agentVersion: 1,
        policy: 'enqueue',
        message: { role: 'user', content: text(String(found)) },
      })),
    ).rejects.toMatchObject({ code: 'conversation_not_found' });
    const first = await start(conv.id, plan('enqueue'));
    expect(first.run).toMatchObject({ status: 'queued', inputMessageId: first.message?.id, agentVersion: 1 });
    expect(first.plan.policy).toBe('enqueue');
    // The active run is seen under the lock: reject answers 409, and nothing more is written.
    await expect(start(conv.id, plan('reject'))).rejects.toMatchObject({ code: 'conversation_busy' });
    expect((await listMessages(database.db, tenant.id, conv.id)).map((m) => m.content)).toEqual([text('hello')]);
    expect(await runsOf()).toHaveLength(1);
  });

  it('serialises messages sent at once: one joins the transcript, the others wait on their runs', async () => {
    const { tenant, conv, send, runsOf } = await conversation();
    const sent = await Promise.all(Array.from({ length: 6 }, (_, i) => send(`m${i}`)));
    expect(sent.filter((s) => s.message)).toHaveLength(1);
    expect(await runsOf()).toHaveLength(6);
    expect((await listMessages(database.db, tenant.id, conv.id)).map((m) => m.seq)).toEqual([1]);
    const rejected = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => send(`r${i}`, 'reject')));
    expect(rejected.every((r) => r.status === 'rejected')).toBe(true);
    const fresh = await conversation();
    const raced = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => fresh.send(`x${i}`, 'reject')));
    expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await fresh.runsOf()).toHaveLength(1);
  });
});
