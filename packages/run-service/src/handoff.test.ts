import { randomBytes } from 'node:crypto';
import {
  addMember,
  createAgent,
  createConversation,
  createTenantWithKey,
  createUser,
  getConversation,
  listConversationEvents,
  listMessages,
  runs,
  setBusinessHours,
  setMemberAvailability,
  withTenantScope,
} from '@agentry/db';
import type { RunJobData } from '@agentry/queue';
import { createMemoryScheduler } from '@agentry/queue';
import { createMemoryBus, createMemoryRunControl } from '@agentry/run-events';
import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assignConversation,
  releaseConversation,
  requestHandoff,
  resolveConversation,
  sendHumanMessage,
} from './handoff.ts';
import { inboxStreamKey } from './handoff-events.ts';
import { createRunService } from './run-service.ts';

/** Monday 2026-11-23 10:00 in Berlin, and Saturday noon: inside and outside weekday office hours. */
const MONDAY_10 = new Date('2026-11-23T09:00:00Z');
const SATURDAY_12 = new Date('2026-11-28T11:00:00Z');
const OFFICE = {
  time_zone: 'Europe/Berlin',
  intervals: [1, 2, 3, 4, 5].map((day) => ({ day, start: '09:00', end: '17:00' })),
};

describe.each(testDatabaseKinds())('handoff on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.destroy());

  /** A tenant with an agent, a conversation, an editor (available unless told) and a viewer. */
  async function setup(available = true) {
    const db = database.db;
    const { tenant } = await createTenantWithKey(db, {
      name: 'T',
      key: { prefix: 'sk_t', hash: randomBytes(8).toString('hex') },
    });
    const { agent } = await createAgent(db, {
      tenantId: tenant.id,
      name: 'Bot',
      config: { basic_settings: { name: 'Bot' }, action_books: [], tools: [] },
      contentHash: randomBytes(8).toString('hex'),
      publish: true,
    });
    const conversation = await createConversation(db, {
      tenantId: tenant.id,
      agentId: agent.id,
      agentVersion: null,
      context: {},
    });
    const user = async (email: string, role: 'editor' | 'viewer', name: string | null) => {
      const created = (await createUser(db, {
        email: `${randomBytes(4).toString('hex')}-${email}`,
        name,
        passwordHash: 'x',
      }))!;
      await addMember(db, tenant.id, created.id, role);
      return created;
    };
    const editor = await user('ana@t.test', 'editor', 'Ana');
    const viewer = await user('vic@t.test', 'viewer', null);
    await setMemberAvailability(db, tenant.id, viewer.id, true); // viewers never count
    if (available) await setMemberAvailability(db, tenant.id, editor.id, true);
    const events = createMemoryBus();
    const ask = (now: Date) =>
      requestHandoff(
        { db, events, now: () => now },
        {
          tenantId: tenant.id,
          conversationId: conversation.id,
          source: 'model',
          reason: 'refund',
          summary: 'wants a refund',
          actor: { type: 'model' },
          checkAvailability: true,
        },
      );
    return { db, tenant, conversation, editor, events, ask };
  }

  it('business hours with a fixed clock: open on Monday 10:00 in Berlin, closed on Saturday', async () => {
    const { db, tenant, conversation, ask } = await setup();
    await setBusinessHours(db, tenant.id, OFFICE);
    const closed = await ask(SATURDAY_12);
    expect(closed).toMatchObject({ status: 'unavailable', reason: 'outside_business_hours' });
    expect((await getConversation(db, tenant.id, conversation.id))!.mode).toBe('bot');
    const open = await ask(MONDAY_10);
    expect(open.status).toBe('pending_human');
    expect(open.conversation).toMatchObject({
      mode: 'pending_human',
      handoff: { source: 'model', reason: 'refund', summary: 'wants a refund', requested_at: MONDAY_10.toISOString() },
    });
    expect((await ask(MONDAY_10)).status).toBe('already');
    expect((await listConversationEvents(db, tenant.id, conversation.id)).map((e) => [e.fromMode, e.toMode])).toEqual([
      ['bot', 'pending_human'],
    ]);
  });

  it('nobody available (a viewer marked available does not count): the mode stays', async () => {
    const { db, tenant, conversation, ask } = await setup(false);
    expect(await ask(MONDAY_10)).toMatchObject({ status: 'unavailable', reason: 'no_member_available' });
    expect((await getConversation(db, tenant.id, conversation.id))!.mode).toBe('bot');
  });

  it('held messages start no run and reach the inbox; claim, reply, release and resolve change the mode in turn', async () => {
    const { db, tenant, conversation, editor, events, ask } = await setup();
    await ask(MONDAY_10);
    const dispatched: RunJobData[] = [];
    const service = createRunService({
      db,
      events,
      scheduler: createMemoryScheduler({ perTenant: 10, dispatch: async (_id, data) => void dispatched.push(data) }),
      control: createMemoryRunControl(),
      models: { openai: { apiKey: 'sk-platform' } },
    });
    const inbox: string[] = [];
    const controller = new AbortController();
    const following = (async () => {
      for await (const record of events.subscribe(inboxStreamKey(tenant.id), { signal: controller.signal })) {
        inbox.push(String(record.event.type));
      }
    })();
    const held = await service.startMessageRun({
      tenant,
      conversationId: conversation.id,
      message: () => ({ role: 'user', content: [{ type: 'text', text: 'hello?' }] }),
    });
    expect(held.run).toBeUndefined();
    expect(held.held).toMatchObject({ role: 'user', runId: null });
    expect(dispatched).toEqual([]);
    const runRows = await withTenantScope(db, tenant.id, (tx) =>
      tx.select().from(runs).where(eq(runs.conversationId, conversation.id)),
    );
    expect(runRows).toEqual([]);

    const deps = { db, events };
    const member = { userId: editor.id, name: 'Ana' };
    const ids = { tenantId: tenant.id, conversationId: conversation.id };
    await expect(sendHumanMessage(deps, { ...ids, author: member, asHolder: false, text: 'hi' })).rejects.toMatchObject(
      {
        code: 'conversation_not_waiting',
      },
    );
    const actor = { type: 'user' as const, id: editor.id, name: 'Ana' };
    expect(
      (await assignConversation(deps, { ...ids, assignee: member, actor, claim: true })).conversation,
    ).toMatchObject({ mode: 'human', assignedTo: editor.id });
    await expect(
      assignConversation(deps, { ...ids, assignee: { userId: 'someone-else', name: 'X' }, actor, claim: true }),
    ).rejects.toMatchObject({ code: 'conversation_assigned_elsewhere' });
    const { message } = await sendHumanMessage(deps, { ...ids, author: member, asHolder: false, text: 'Ana here' });
    expect(message).toMatchObject({ role: 'assistant', author: { type: 'human', name: 'Ana', user_id: editor.id } });
    expect((await releaseConversation(deps, { ...ids, actor, note: 'over to you' })).mode).toBe('bot');
    await expect(releaseConversation(deps, { ...ids, actor })).rejects.toMatchObject({
      code: 'conversation_not_waiting',
    });
    expect((await resolveConversation(deps, { ...ids, actor })).mode).toBe('resolved');
    expect((await listMessages(db, tenant.id, conversation.id)).map((m) => [m.role, m.author?.type ?? null])).toEqual([
      ['user', null],
      ['assistant', 'human'],
      ['assistant', 'note'],
    ]);
    // A resolved conversation the visitor writes to goes back to the model: a run starts.
    const reopened = await service.startMessageRun({
      tenant,
      conversationId: conversation.id,
      message: () => ({ role: 'user', content: [{ type: 'text', text: 'again' }] }),
    });
    expect(reopened.run).toBeDefined();
    expect((await getConversation(db, tenant.id, conversation.id))!.mode).toBe('bot');
    await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    await following;
    expect(inbox).toEqual(['mode', 'visitor-message', 'mode', 'human-message', 'mode', 'mode', 'mode']);
  });
});
