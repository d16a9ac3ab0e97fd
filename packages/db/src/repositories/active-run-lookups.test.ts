import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activeRuns,
  claimRunInTurn,
  createConversation,
  createRunForMessage,
  finishAttempt,
  type Tx,
  withTenantScope,
} from '../index.ts';
import { queryRows } from '../testing/query-rows.ts';
import { tenantWithAgent } from '../testing/run-fixtures.ts';

const text = (t: string) => [{ type: 'text' as const, text: t }];

/**
 * A conversation's active-run lookups (the busy check of a message, the claim's turn, the next
 * queued run) must read the conversation's few active runs, not every run of its tenant: with the
 * statuses bound as parameters, a prepared statement's generic plan combined the conversation's
 * index with the tenant's and read all of the tenant's runs each time.
 */
describe.each(testDatabaseKinds())('active-run lookups on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.destroy());

  it('use the partial index of active runs, generic plans included, and never the tenant index', async () => {
    const { tenant, agent, startRun } = await tenantWithAgent(database.db);
    // A tenant with history: finished runs in other conversations.
    for (let i = 0; i < 40; i++) {
      const run = await startRun();
      await finishAttempt(database.db, run, run.fence, { status: 'completed' }, { messages: [], completions: [] });
    }
    const conv = await createConversation(database.db, {
      tenantId: tenant.id,
      agentId: agent.id,
      agentVersion: null,
      context: {},
    });
    const message = (t: string) => ({
      policy: 'enqueue' as const,
      tenantId: tenant.id,
      conversationId: conv.id,
      agentId: agent.id,
      agentVersion: 1,
      traceId: 'trace',
      message: { role: 'user' as const, content: text(t) },
    });
    const first = (await createRunForMessage(database.db, message('one'))).run;
    const second = (await createRunForMessage(database.db, message('two'))).run;
    await database.db.execute(sql`analyze runs`);

    // Not its turn while the first is active (the refusal is explained by a read of its own).
    expect(await claimRunInTurn(database.db, { id: second.id, tenantId: tenant.id })).toBeUndefined();

    const scans = await withTenantScope(database.db, tenant.id, async (tx) => {
      // Every later prepared statement of this transaction is planned generically, as a pooled
      // connection's are after five runs.
      await tx.execute(sql`set local plan_cache_mode = force_generic_plan`);
      const delta = async (work: () => Promise<void>) => {
        const before = await indexScans(tx);
        await work();
        const after = await indexScans(tx);
        return Object.fromEntries(Object.entries(after).map(([name, n]) => [name, n - (before[name] ?? 0)]));
      };
      const busyChecks = await delta(async () => {
        for (let i = 0; i < 3; i++) {
          expect((await activeRuns(tx, tenant.id, conv.id)).map((r) => r.id)).toEqual([first.id, second.id]);
        }
      });
      let claimed: Awaited<ReturnType<typeof claimRunInTurn>>;
      const turn = await delta(async () => {
        claimed = await claimRunInTurn(tx, { id: first.id, tenantId: tenant.id });
      });
      const next = await delta(async () => {
        const run = claimed!.run;
        const done = await finishAttempt(
          tx,
          run,
          run.fence,
          { status: 'completed' },
          { messages: [], completions: [] },
        );
        expect(done?.nextQueued?.id).toBe(second.id);
      });
      return { busyChecks, turn, next };
    });
    expect(scans.busyChecks).toEqual({ runs_tenant_idx: 0, runs_conversation_active_idx: 3 });
    // The claim's own row is found by its id; its turn, by the conversation's active runs.
    expect(scans.turn.runs_conversation_active_idx).toBeGreaterThanOrEqual(1);
    expect(scans.next).toEqual({ runs_tenant_idx: 0, runs_conversation_active_idx: 1 });
  });
});

/**
 * Index scans made so far by this backend, pending ones included (`pg_stat_get_xact_numscans`
 * also counts what earlier transactions have not reported yet: compare two readings).
 */
async function indexScans(tx: Tx): Promise<Record<string, number>> {
  const rows = await queryRows<{ relname: string; scans: number | string }>(
    tx,
    sql`select relname, pg_stat_get_xact_numscans(oid) as scans from pg_class
        where relname in ('runs_tenant_idx', 'runs_conversation_active_idx')`,
  );
  return Object.fromEntries(rows.map((r) => [r.relname, Number(r.scans)]));
}
