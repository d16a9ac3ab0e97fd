import { randomBytes } from 'node:crypto';
import {
  createAgent,
  createConversation,
  createTenantWithKey,
  getAgentVersion,
  getConversation,
  getRun,
  listConversations,
  listMessages,
  newId,
  putSecret,
  runs,
  type Tenant,
  updateTenant,
  withTenantScope,
} from '@agentry/db';
import type { RunJobData } from '@agentry/queue';
import { createMemoryScheduler } from '@agentry/queue';
import { createMemoryRunControl } from '@agentry/run-events';
import { createSecretBox } from '@agentry/secrets';
import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunService } from './run-service.ts';
import { secretContext } from './tenant-secrets.ts';

const text = (t: string) => [{ type: 'text' as const, text: t }];
const message = (t: string) => () => ({ role: 'user' as const, content: text(t) });
const box = createSecretBox({ keys: { k1: randomBytes(32) }, currentKeyId: 'k1' });

describe.each(testDatabaseKinds())('the run service on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.destroy());

  /** A tenant with one agent (`config` over a minimal one, published unless told), a conversation and the service. */
  async function setup(config: Record<string, unknown> = {}, options: { publish?: boolean; secretBox?: boolean } = {}) {
    const db = database.db;
    const { tenant } = await createTenantWithKey(db, {
      name: 'T',
      key: { prefix: 'sk_t', hash: randomBytes(8).toString('hex') },
    });
    const { agent } = await createAgent(db, {
      tenantId: tenant.id,
      name: 'Bot',
      config: { basic_settings: { name: 'Bot' }, action_books: [], tools: [], ...config },
      contentHash: randomBytes(8).toString('hex'),
      publish: options.publish ?? true,
    });
    const conv = await createConversation(db, {
      tenantId: tenant.id,
      agentId: agent.id,
      agentVersion: null,
      context: {},
    });
    const dispatched: RunJobData[] = [];
    const scheduler = createMemoryScheduler({
      perTenant: 100,
      dispatch: async (_jobId, data) => {
        dispatched.push(data);
      },
    });
    const control = createMemoryRunControl();
    const cancelled: string[] = [];
    control.onCancel((runId) => cancelled.push(runId));
    const service = createRunService({
      db,
      scheduler,
      control,
      models: { openai: { apiKey: 'sk-platform' } },
      ...(options.secretBox === false ? {} : { secretBox: box }),
    });
    // These conversations are the model's (mode `bot`): every message starts a run.
    const send = async (t: string, more: Partial<Parameters<typeof service.startMessageRun>[0]> = {}) => {
      const result = await service.startMessageRun({ tenant, conversationId: conv.id, message: message(t), ...more });
      if (!result.run) throw new Error('the message was held for people');
      return result;
    };
    const runsOf = () =>
      withTenantScope(db, tenant.id, (tx) => tx.select().from(runs)).then((rows) =>
        rows.filter((r) => r.conversationId === conv.id),
      );
    const written = async () => ({
      runs: (await runsOf()).length,
      messages: (await listMessages(db, tenant.id, conv.id)).length,
      updatedAt: (await getConversation(db, tenant.id, conv.id))!.updatedAt.getTime(),
    });
    return { db, tenant, agent, conv, service, send, runsOf, written, dispatched, cancelled };
  }

  it('writes the run with its message and queues it', async () => {
    const { send, dispatched, db, tenant, conv } = await setup();
    const { run, interrupted } = await send('hello');
    expect(run).toMatchObject({ status: 'queued', agentVersion: 1, conversationId: conv.id });
    expect(interrupted).toEqual([]);
    expect(dispatched.map((d) => d.runId)).toEqual([run.id]);
    expect((await listMessages(db, tenant.id, conv.id)).map((m) => [m.content, m.runId])).toEqual([
      [text('hello'), run.id],
    ]);
  });

  it('reject: 409 conversation_busy while a run is active, and nothing written', async () => {
    const { send, written, dispatched } = await setup({ busy_policy: 'reject' });
    await send('one');
    const before = await written();
    await expect(send('two')).rejects.toMatchObject({ code: 'conversation_busy', status: 409 });
    expect(await written()).toEqual(before);
    expect(dispatched).toHaveLength(1);
  });

  it('enqueue: the message waits on its run; interrupt: the same, the active runs are marked and their workers told', async () => {
    const enqueue = await setup({ busy_policy: 'enqueue' });
    const first = await enqueue.send('one');
    const queued = await enqueue.send('two');
    expect(queued.run).toMatchObject({ inputMessageId: null, pendingInput: text('two') });
    expect(queued.interrupted).toEqual([]);
    expect(enqueue.cancelled).toEqual([]);
    expect((await getRun(enqueue.db, enqueue.tenant.id, first.run.id))?.cancelRequestedAt).toBeNull();

    const interrupt = await setup({ busy_policy: 'interrupt' });
    const a = await interrupt.send('one');
    const b = await interrupt.send('two');
    const c = await interrupt.send('three');
    expect(c.interrupted.map((r) => r.id).sort()).toEqual([a.run.id, b.run.id].sort());
    expect(interrupt.cancelled.sort()).toEqual(expect.arrayContaining([a.run.id, b.run.id].sort()));
    for (const id of [a.run.id, b.run.id]) {
      expect((await getRun(interrupt.db, interrupt.tenant.id, id))?.cancelRequestedAt).toBeInstanceOf(Date);
    }
    expect((await getRun(interrupt.db, interrupt.tenant.id, c.run.id))?.cancelRequestedAt).toBeNull();
    expect(await listMessages(interrupt.db, interrupt.tenant.id, interrupt.conv.id)).toHaveLength(1);
  });

  it('a message past the queue bound is refused 429 conversation_queue_full, nothing written', async () => {
    const { send, written } = await setup({ limits: { max_queued_runs: 2 } });
    await send('one');
    await send('two');
    const before = await written();
    await expect(send('three')).rejects.toMatchObject({ code: 'conversation_queue_full', status: 429 });
    expect(await written()).toEqual(before);
  });

  it('404 for a conversation that is not the tenant’s: the caller is asked, the body never read, nothing written', async () => {
    const mine = await setup();
    const theirs = await setup();
    const seen: unknown[] = [];
    let bodyRead = false;
    for (const conversationId of [theirs.conv.id, newId()]) {
      await expect(
        mine.service.startMessageRun({
          tenant: mine.tenant,
          conversationId,
          authorize: (conversation) => seen.push(conversation),
          message: () => {
            bodyRead = true;
            return message('x')();
          },
        }),
      ).rejects.toMatchObject({ code: 'conversation_not_found', status: 404 });
    }
    expect(seen).toEqual([undefined, undefined]);
    expect(bodyRead).toBe(false);
    expect((await theirs.written()).runs).toBe(0);
  });

  it('a refusal by the caller writes nothing and releases the lock', async () => {
    const { send, written } = await setup();
    const before = await written();
    await expect(
      send('x', {
        authorize: () => {
          throw new Error('refused');
        },
      }),
    ).rejects.toThrow('refused');
    await expect(
      send('x', {
        beforeWrite: async () => {
          throw new Error('no slot');
        },
      }),
    ).rejects.toThrow('no slot');
    expect(await written()).toEqual(before);
    await expect(send('now')).resolves.toMatchObject({ run: { status: 'queued' } });
  });

  it('serialises messages sent at once: with reject exactly one starts', async () => {
    const { send, runsOf, db, tenant, conv } = await setup({ busy_policy: 'reject' });
    const raced = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => send(`x${i}`)));
    expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(raced.flatMap((r) => (r.status === 'rejected' ? [(r.reason as { code: string }).code] : [])).sort()).toEqual(
      ['conversation_busy', 'conversation_busy', 'conversation_busy'],
    );
    expect(await runsOf()).toHaveLength(1);
    expect(await listMessages(db, tenant.id, conv.id)).toHaveLength(1);
  });

  it('refuses before writing: no published version, model, secrets, quota', async () => {
    const unpublished = await setup({}, { publish: false });
    await expect(unpublished.send('x')).rejects.toMatchObject({ code: 'agent_not_published', status: 409 });
    expect((await unpublished.written()).runs).toBe(0);

    const noModel = await setup({ model: { provider: 'anthropic' } });
    await expect(noModel.send('x')).rejects.toMatchObject({ code: 'model_not_configured' });
    expect((await noModel.written()).runs).toBe(0);

    const ownKey = await setup({ model: { provider: 'anthropic', api_key_secret: 'anthropic_key' } });
    await expect(ownKey.send('x')).rejects.toMatchObject({ code: 'missing_secret', status: 409 });
    expect((await ownKey.written()).runs).toBe(0);
    const sealed = box.seal('sk-ant-own', secretContext(ownKey.tenant.id, 'anthropic_key'));
    await putSecret(ownKey.db, ownKey.tenant.id, 'anthropic_key', sealed);
    await expect(ownKey.send('x')).resolves.toMatchObject({ run: { status: 'queued' } });

    const noBox = await setup({ model: { api_key_secret: 'k' } }, { secretBox: false });
    await expect(noBox.send('x')).rejects.toMatchObject({ code: 'secrets_not_configured', status: 503 });

    const quota = await setup();
    const limited = (await updateTenant(quota.db, quota.tenant.id, { dailyRunLimit: 1 })) as Tenant;
    await quota.service.startMessageRun({ tenant: limited, conversationId: quota.conv.id, message: message('one') });
    const before = await quota.written();
    await expect(
      quota.service.startMessageRun({ tenant: limited, conversationId: quota.conv.id, message: message('two') }),
    ).rejects.toMatchObject({ code: 'quota_exceeded', status: 429 });
    expect(await quota.written()).toEqual(before);
  });

  it('a new conversation’s run: its history, then the message; a refused context writes no conversation', async () => {
    const { service, tenant, agent, db, dispatched } = await setup({
      context: [{ name: 'plan', type: 'string', required: true }],
    });
    const v = (await getAgentVersion(db, tenant.id, agent.id, 1))!;
    const before = (await listConversations(db, tenant.id, { limit: 100 })).length;
    await expect(
      service.startConversationRun({
        tenant,
        agentId: agent.id,
        version: v,
        pinned: false,
        history: [],
        message: { role: 'user', content: text('hi') },
        context: () => {
          throw new Error('bad context');
        },
      }),
    ).rejects.toThrow('bad context');
    expect((await listConversations(db, tenant.id, { limit: 100 })).length).toBe(before);
    const { run, conversation } = await service.startConversationRun({
      tenant,
      agentId: agent.id,
      version: v,
      pinned: true,
      history: [
        { role: 'user', content: text('earlier') },
        { role: 'assistant', content: text('answer') },
      ],
      message: { role: 'user', content: text('now') },
      context: (compiled) => {
        expect(compiled.contextVariables.map((c) => c.name)).toEqual(['plan']);
        return { plan: 'pro' };
      },
    });
    expect(conversation).toMatchObject({ agentVersion: 1, context: { plan: 'pro' } });
    expect((await listMessages(db, tenant.id, conversation.id)).map((m) => [m.content, m.runId])).toEqual([
      [text('earlier'), null],
      [text('answer'), null],
      [text('now'), run.id],
    ]);
    expect(dispatched.at(-1)?.runId).toBe(run.id);
  });
});
