import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentVersion,
  addAgentVersion,
  type Conversation,
  createAgent,
  createConversation,
  createTenantWithKey,
  type Db,
  getAgentWithVersion,
  lockConversationForRun,
  newId,
  withTenantScope,
} from '../index.ts';

describe.each(testDatabaseKinds())('agent and version in one statement on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.destroy());

  /** What a message POST finds: the conversation with its version (`lockConversationForRun`), writing nothing. */
  async function getConversationWithVersion(db: Db, tenantId: string, conversationId: string) {
    const nothing = new Error('look only');
    let seen: { conversation: Conversation; version: AgentVersion | undefined } | undefined;
    await expect(
      withTenantScope(db, tenantId, async (tx) => {
        const found = await lockConversationForRun(tx, tenantId, conversationId);
        seen = found && { conversation: found.conversation, version: found.version };
        throw nothing;
      }),
    ).rejects.toBe(nothing);
    return seen;
  }

  let seq = 0;
  async function tenant() {
    seq += 1;
    const { tenant } = await createTenantWithKey(database.db, {
      name: `T${seq}`,
      key: { prefix: `sk_${seq}`, hash: `lookup-${kind}-${seq}` },
    });
    return tenant.id;
  }

  /** An agent with versions 1 and 2; `published` says which one is published (none: null). */
  async function agentWithTwoVersions(tenantId: string, published: 1 | 2 | null) {
    const { agent } = await createAgent(database.db, {
      tenantId,
      name: 'Bot',
      config: { v: 1 },
      contentHash: 'h1',
      publish: published === 1,
    });
    await addAgentVersion(database.db, agent.id, {
      tenantId,
      name: 'Bot',
      config: { v: 2 },
      contentHash: 'h2',
      publish: published === 2,
    });
    return agent.id;
  }

  it('reads the published version, or the one named, with the agent', async () => {
    const tenantId = await tenant();
    const agentId = await agentWithTwoVersions(tenantId, 1);
    const published = await getAgentWithVersion(database.db, tenantId, agentId);
    expect(published?.agent).toMatchObject({ id: agentId, publishedVersion: 1, latestVersion: 2 });
    expect(published?.version).toMatchObject({ agentId, version: 1, config: { v: 1 } });
    expect((await getAgentWithVersion(database.db, tenantId, agentId, 2))?.version?.config).toEqual({ v: 2 });
  });

  it('has no version for a missing number or an unpublished agent, and no agent for another tenant', async () => {
    const tenantId = await tenant();
    const published = await agentWithTwoVersions(tenantId, 2);
    const draft = await agentWithTwoVersions(tenantId, null);
    expect(await getAgentWithVersion(database.db, tenantId, published, 3)).toMatchObject({
      agent: { id: published },
      version: undefined,
    });
    expect(await getAgentWithVersion(database.db, tenantId, draft)).toMatchObject({
      agent: { id: draft },
      version: undefined,
    });
    expect((await getAgentWithVersion(database.db, tenantId, draft, 1))?.version?.version).toBe(1);
    expect(await getAgentWithVersion(database.db, await tenant(), published)).toBeUndefined();
    expect(await getAgentWithVersion(database.db, tenantId, newId())).toBeUndefined();
  });

  it('reads a conversation with its pinned version, or its agent’s published one as it is now', async () => {
    const tenantId = await tenant();
    const agentId = await agentWithTwoVersions(tenantId, 1);
    const following = await createConversation(database.db, { tenantId, agentId, agentVersion: null, context: {} });
    const pinned = await createConversation(database.db, { tenantId, agentId, agentVersion: 2, context: { a: 1 } });
    const found = await getConversationWithVersion(database.db, tenantId, following.id);
    expect(found?.conversation).toEqual(following);
    expect(found?.version).toMatchObject({ agentId, version: 1 });
    expect((await getConversationWithVersion(database.db, tenantId, pinned.id))?.version?.version).toBe(2);

    await addAgentVersion(database.db, agentId, {
      tenantId,
      name: 'Bot',
      config: { v: 3 },
      contentHash: 'h3',
      publish: true,
    });
    expect((await getConversationWithVersion(database.db, tenantId, following.id))?.version?.version).toBe(3);
    expect((await getConversationWithVersion(database.db, tenantId, pinned.id))?.version?.version).toBe(2);
  });

  it('has no version while the agent is unpublished, and no conversation for another tenant', async () => {
    const tenantId = await tenant();
    const agentId = await agentWithTwoVersions(tenantId, null);
    const conversation = await createConversation(database.db, { tenantId, agentId, agentVersion: null, context: {} });
    expect(await getConversationWithVersion(database.db, tenantId, conversation.id)).toEqual({
      conversation,
      version: undefined,
    });
    expect(await getConversationWithVersion(database.db, await tenant(), conversation.id)).toBeUndefined();
    expect(await getConversationWithVersion(database.db, tenantId, newId())).toBeUndefined();
  });

  it('joins the caller’s tenant-scoped transaction instead of opening one', async () => {
    const tenantId = await tenant();
    const agentId = await agentWithTwoVersions(tenantId, 2);
    const found = await withTenantScope(database.db, tenantId, async (tx) => {
      const lookup = await getAgentWithVersion(tx, tenantId, agentId);
      const conversation = await createConversation(tx, { tenantId, agentId, agentVersion: null, context: {} });
      return { lookup, read: await getConversationWithVersion(tx, tenantId, conversation.id) };
    });
    expect(found.lookup?.version?.version).toBe(2);
    expect(found.read?.version?.version).toBe(2);
  });
});
