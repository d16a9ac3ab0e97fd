import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addAgentVersion,
  appendRunMessages,
  createAgent,
  createConversation,
  createRunForMessage,
  createTenantWithKey,
  deleteConversation,
  findActiveApiKey,
  getAgent,
  getConversation,
  getRun,
  listMessages,
} from './index.ts';

describe.each(testDatabaseKinds())('repositories on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.destroy());

  it('creates a tenant with a key found by hash, and scopes rows by tenant', async () => {
    const { db } = database;
    const a = await createTenantWithKey(db, { name: 'A', key: { prefix: 'sk_a', hash: `hash-a-${kind}` } });
    const b = await createTenantWithKey(db, { name: 'B', key: { prefix: 'sk_b', hash: `hash-b-${kind}` } });
    expect((await findActiveApiKey(db, `hash-a-${kind}`))?.tenant.id).toBe(a.tenant.id);
    expect(await findActiveApiKey(db, 'nope')).toBeUndefined();

    const { agent } = await createAgent(db, {
      tenantId: a.tenant.id,
      name: 'Bot',
      config: { x: 1 },
      contentHash: 'h1',
      publish: true,
    });
    expect(await getAgent(db, b.tenant.id, agent.id)).toBeUndefined();
    const v2 = await addAgentVersion(db, agent.id, {
      tenantId: a.tenant.id,
      name: 'Bot 2',
      config: { x: 2 },
      contentHash: 'h2',
      publish: true,
    });
    expect(v2?.version.version).toBe(2);
    expect(v2?.agent.publishedVersion).toBe(2);
    expect(
      await addAgentVersion(db, agent.id, {
        tenantId: b.tenant.id,
        name: 'x',
        config: {},
        contentHash: 'h',
        publish: true,
      }),
    ).toBeUndefined();
  });

  it('stores a run with its input atomically and keeps message order gap-free', async () => {
    const { db } = database;
    const t = await createTenantWithKey(db, { name: 'C', key: { prefix: 'sk_c', hash: `hash-c-${kind}` } });
    const { agent } = await createAgent(db, {
      tenantId: t.tenant.id,
      name: 'Bot',
      config: {},
      contentHash: 'h',
      publish: true,
    });
    const conv = await createConversation(db, {
      tenantId: t.tenant.id,
      agentId: agent.id,
      agentVersion: null,
      context: {},
    });
    const { run } = await createRunForMessage(db, {
      tenantId: t.tenant.id,
      conversationId: conv.id,
      agentId: agent.id,
      agentVersion: 1,
      traceId: 'trace',
      message: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    });
    await appendRunMessages(
      db,
      { tenantId: t.tenant.id, conversationId: conv.id, runId: run.id },
      [
        { role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 't', arguments: {} }] },
        { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'c1', toolName: 't', output: 'ok' }] },
      ],
      { status: 'running' },
    );
    const list = await listMessages(db, t.tenant.id, conv.id);
    expect(list.map((m) => [m.seq, m.role])).toEqual([
      [1, 'user'],
      [2, 'assistant'],
      [3, 'tool'],
    ]);
    expect((await getRun(db, t.tenant.id, run.id))?.status).toBe('running');
    expect(await deleteConversation(db, t.tenant.id, conv.id)).toBe(true);
    expect(await getConversation(db, t.tenant.id, conv.id)).toBeUndefined();
    expect(await getRun(db, t.tenant.id, run.id)).toBeUndefined();
  });
});
