import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  claimTestRun,
  createConversationWithHistory,
  createTestRun,
  finishTestRun,
  getConversation,
  getTestRun,
  listTestCaseResults,
  staleTestRuns,
  storeTestCaseResult,
  touchStaleTestRun,
} from '../index.ts';
import { tenantWithAgent } from '../testing/run-fixtures.ts';

const planned = [{ testId: null, revision: null, name: 'a', definition: { name: 'a' } }];
const run = (agentId: string, agentVersion = 1) => ({
  agentId,
  agentVersion,
  model: 'agent',
  judgeModel: null,
  repetitions: 1,
  threshold: 1,
  cases: planned,
  createdBy: null,
});
const result = (position: number, passed: boolean) => ({
  position,
  testId: null,
  revision: null,
  name: `case ${position}`,
  passed,
  passRate: passed ? 1 : 0,
  attempts: [],
  definition: {},
  inputTokens: 10,
  outputTokens: 5,
  costUsd: passed ? 0.5 : null,
});

describe.each(testDatabaseKinds())('test runs on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.destroy());

  it('one active run per version and a tenant cap; results stored once, counts and cost from them', async () => {
    const { tenant, agent } = await tenantWithAgent(database.db);
    const first = await createTestRun(database.db, tenant.id, run(agent.id), { maxActivePerTenant: 2 });
    await expect(createTestRun(database.db, tenant.id, run(agent.id), { maxActivePerTenant: 2 })).rejects.toMatchObject(
      {
        code: 'test_run_active',
      },
    );
    await createTestRun(database.db, tenant.id, run(agent.id, 2), { maxActivePerTenant: 2 });
    await expect(
      createTestRun(database.db, tenant.id, run(agent.id, 3), { maxActivePerTenant: 2 }),
    ).rejects.toMatchObject({
      code: 'test_run_active',
    });
    // Results only count while the run is running, once per position.
    expect(await storeTestCaseResult(database.db, tenant.id, first.id, result(0, true))).toBeUndefined();
    const claimed = await claimTestRun(database.db, tenant.id, first.id);
    expect(claimed?.done.size).toBe(0);
    await storeTestCaseResult(database.db, tenant.id, first.id, result(0, true));
    const again = await storeTestCaseResult(database.db, tenant.id, first.id, result(0, false));
    expect(again).toMatchObject({ completedCount: 1, passedCount: 1, failedCount: 0, inputTokens: 10, costUsd: 0.5 });
    const after = await storeTestCaseResult(database.db, tenant.id, first.id, result(1, false));
    expect(after).toMatchObject({ completedCount: 2, failedCount: 1, inputTokens: 20, costUsd: null });
    expect((await claimTestRun(database.db, tenant.id, first.id))?.done).toEqual(new Set([0, 1]));
    expect((await listTestCaseResults(database.db, tenant.id, first.id)).map((r) => r.name)).toEqual([
      'case 0',
      'case 1',
    ]);
    expect((await finishTestRun(database.db, tenant.id, first.id, 'failed'))?.status).toBe('failed');
    expect(await finishTestRun(database.db, tenant.id, first.id, 'passed')).toBeUndefined();
    expect(await claimTestRun(database.db, tenant.id, first.id)).toBeUndefined();
  });

  it('finds silent runs for the sweeper and hands each to one job', async () => {
    const { tenant, agent } = await tenantWithAgent(database.db);
    const created = await createTestRun(database.db, tenant.id, run(agent.id), { maxActivePerTenant: 5 });
    const future = new Date(Date.now() + 60_000);
    expect((await staleTestRuns(database.db, future, 100)).map((r) => r.id)).toContain(created.id);
    expect(await touchStaleTestRun(database.db, tenant.id, created.id, future)).toBe(true);
    // Touched: no longer silent before "now".
    expect(await touchStaleTestRun(database.db, tenant.id, created.id, new Date(Date.now() - 60_000))).toBe(false);
  });

  it('keeps the newest finished runs per agent; older ones go with their test conversations', async () => {
    const { tenant, agent } = await tenantWithAgent(database.db);
    const made: string[] = [];
    const conversationsOf: string[] = [];
    for (let i = 0; i < 4; i++) {
      const created = await createTestRun(database.db, tenant.id, run(agent.id), {
        maxActivePerTenant: 5,
        keepPerAgent: 2,
      });
      made.push(created.id);
      const conversation = await createConversationWithHistory(database.db, {
        tenantId: tenant.id,
        agentId: agent.id,
        agentVersion: 1,
        context: {},
        history: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        test: { testRunId: created.id, fixtures: [] },
      });
      conversationsOf.push(conversation.id);
      await finishTestRun(database.db, tenant.id, created.id, 'passed');
    }
    // The 4th creation pruned the 1st (the 2nd and 3rd finished, the 4th still active then).
    expect(await getTestRun(database.db, tenant.id, made[0]!)).toBeUndefined();
    expect(await getConversation(database.db, tenant.id, conversationsOf[0]!)).toBeUndefined();
    for (const id of made.slice(1)) expect(await getTestRun(database.db, tenant.id, id)).toBeDefined();
    expect(await getConversation(database.db, tenant.id, conversationsOf[1]!)).toBeDefined();
  });
});
