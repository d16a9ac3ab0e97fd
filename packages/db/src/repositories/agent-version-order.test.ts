import { readFileSync } from 'node:fs';
import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addAgentVersion,
  createAgent,
  createTenantWithKey,
  getAgentVersion,
  getAgentWithVersion,
  listAgentVersions,
  publishAgentVersion,
  recordAuditEvent,
  withSystemScope,
} from '../index.ts';
import { expiredWaitingRuns } from './waiting-runs.ts';

/** Keys deliberately out of jsonb's order (shorter keys first, then bytewise). */
const config = {
  basic_settings: { name: 'Order' },
  tools: [
    {
      name: 'lookup',
      parameters: { properties: { zeta: { type: 'string' }, a: { type: 'string' }, middle: { type: 'number' } } },
      endpoint: {
        headers: { 'X-Tenant': 'x', Accept: 'a', 'X-A': 'b' },
        query_params: { sort: '1', q: '2', limit: '3' },
        body: { zip: 1, email: 2, id: 3 },
      },
    },
  ],
  limits: { waiting_timeout: 5 },
};

describe.each(testDatabaseKinds())('agent versions on %s', (kind) => {
  let database: TestDatabase;
  let tenantId: string;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const created = await createTenantWithKey(database.db, {
      name: 'T',
      key: { prefix: 'sk_o', hash: `hash-order-${kind}` },
    });
    tenantId = created.tenant.id;
  });
  afterAll(() => database?.destroy());

  it('gives the config back with its keys in the order it was stored', async () => {
    const { db } = database;
    const { agent } = await createAgent(db, { tenantId, name: 'Order', config, contentHash: 'h', publish: true });
    const read = await getAgentVersion(db, tenantId, agent.id, 1);
    expect(JSON.stringify(read?.config)).toBe(JSON.stringify(config));
    const published = await getAgentWithVersion(db, tenantId, agent.id);
    expect(JSON.stringify(published?.version?.config)).toBe(JSON.stringify(config));
    // SQL readers of the config still work on the json column.
    await expect(expiredWaitingRuns(db, 60)).resolves.toEqual([]);
  });

  it('stamps published_at on publish and roll back, and keeps it on versions no longer live', async () => {
    const { db } = database;
    const { agent } = await createAgent(db, { tenantId, name: 'P', config, contentHash: 'h1', publish: true });
    await addAgentVersion(db, agent.id, { tenantId, name: 'P', config, contentHash: 'h2', publish: true });
    await addAgentVersion(db, agent.id, { tenantId, name: 'P', config, contentHash: 'h3', publish: false });
    const before = await listAgentVersions(db, tenantId, agent.id);
    expect(before.map((v) => [v.version, v.publishedAt !== null])).toEqual([
      [3, false],
      [2, true],
      [1, true],
    ]);
    await publishAgentVersion(db, tenantId, agent.id, 1);
    const after = await listAgentVersions(db, tenantId, agent.id);
    const v1 = after.find((v) => v.version === 1)!;
    expect(v1.publishedAt!.getTime()).toBeGreaterThanOrEqual(
      before.find((v) => v.version === 1)!.publishedAt!.getTime(),
    );
    expect(after.find((v) => v.version === 3)?.publishedAt).toBeNull();
    expect(await publishAgentVersion(db, tenantId, agent.id, 9)).toBeUndefined();
  });

  it('0018 backfills published_at: the live version, and versions the audit log shows going live or replaced', async () => {
    const { db } = database;
    const { agent } = await createAgent(db, { tenantId, name: 'B', config, contentHash: 'b1', publish: true });
    for (const hash of ['b2', 'b3', 'b4'])
      await addAgentVersion(db, agent.id, { tenantId, name: 'B', config, contentHash: hash, publish: false });
    await publishAgentVersion(db, tenantId, agent.id, 3);
    // Before 0018 only the audit log knew: v1 was replaced by v3, which is live.
    await recordAuditEvent(db, {
      tenantId,
      actor: { type: 'api_key' },
      action: 'agent.version_published',
      target: { type: 'agent', id: agent.id },
      details: { version: 3, previous_version: 1 },
    });
    const backfill = readFileSync(
      new URL('../../../../migrations/0018_agent_version_order_published.sql', import.meta.url),
      'utf8',
    )
      .split('--> statement-breakpoint')
      .filter((statement) => statement.includes('UPDATE'));
    expect(backfill).toHaveLength(2);
    await withSystemScope(db, 'test: 0018 backfill', async (tx) => {
      await tx.execute(sql`update agent_versions set published_at = null where agent_id = ${agent.id}`);
      for (const statement of backfill) await tx.execute(sql.raw(statement));
    });
    const versions = await listAgentVersions(db, tenantId, agent.id);
    expect(versions.map((v) => [v.version, v.publishedAt !== null])).toEqual([
      [4, false],
      [3, true],
      [2, false],
      [1, true],
    ]);
  });
});
