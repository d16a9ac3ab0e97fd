import { errors } from '@agentry/errors';
import { and, asc, desc, eq, inArray, lt, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import {
  agents,
  agentTests,
  conversations,
  type PlannedTestCase,
  runs,
  type TestRunStatusValue,
  testCaseResults,
  testRuns,
} from '../schema.ts';
import { type Tx, withSystemScope, withTenantScope } from '../tenant-scope.ts';
import { isActiveRun } from './run-status-sql.ts';
import type { Run } from './runs.ts';

/**
 * Test conversations that gate publishing (issue 22): an agent's stored cases, test runs and
 * their per-case results. Definitions are opaque here (the contract's `AgentTestDefinition`,
 * checked by the API before they are stored).
 */

export type AgentTestRow = typeof agentTests.$inferSelect;
export type TestRunRow = typeof testRuns.$inferSelect;
export type TestCaseResultRow = typeof testCaseResults.$inferSelect;

export interface AgentTestInput {
  name: string;
  definition: Record<string, unknown>;
}

const FINAL_TEST_RUN_STATUSES: TestRunStatusValue[] = ['passed', 'failed', 'error', 'cancelled'];

function nameTaken(name: string) {
  return errors.validation(`A test named "${name}" exists already`, [
    { path: '/name', code: 'taken', message: 'Another test of this agent has this name' },
  ]);
}

/** Serialises the writes of one agent's cases, so counting and inserting cannot race past a limit. */
async function lockAgentTests(tx: Tx, agentId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`agent-tests:${agentId}`}, 0))`);
}

function tooMany(max: number) {
  return errors.validation(`An agent may have at most ${max} tests`, [
    { path: '/tests', code: 'too_many', message: `at most ${max} tests per agent` },
  ]);
}

/**
 * An agent's cases, by name.
 *
 * @example
 * const tests = await listAgentTests(db, tenantId, agentId);
 */
export async function listAgentTests(db: Db, tenantId: string, agentId: string): Promise<AgentTestRow[]> {
  return withTenantScope(db, tenantId, (tx) =>
    tx
      .select()
      .from(agentTests)
      .where(and(eq(agentTests.tenantId, tenantId), eq(agentTests.agentId, agentId)))
      .orderBy(asc(agentTests.name)),
  );
}

export async function getAgentTest(
  db: Db,
  tenantId: string,
  agentId: string,
  id: string,
): Promise<AgentTestRow | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select()
      .from(agentTests)
      .where(and(eq(agentTests.tenantId, tenantId), eq(agentTests.agentId, agentId), eq(agentTests.id, id))),
  );
  return row;
}

/**
 * Stores a new case; a name the agent's cases use already is `validation_failed` at `/name`, more
 * than `maxTests` likewise at `/tests` (checked in the inserting transaction).
 *
 * @example
 * await createAgentTest(db, tenantId, agentId, { name: 'refund', definition }, { maxTests: 200 });
 */
export async function createAgentTest(
  db: Db,
  tenantId: string,
  agentId: string,
  input: AgentTestInput,
  limits: { maxTests: number },
): Promise<AgentTestRow> {
  return withTenantScope(db, tenantId, async (tx) => {
    await lockAgentTests(tx, agentId);
    const [existing] = await tx
      .select({ n: sql<number>`count(*)::int`, named: sql<boolean>`bool_or(${agentTests.name} = ${input.name})` })
      .from(agentTests)
      .where(and(eq(agentTests.tenantId, tenantId), eq(agentTests.agentId, agentId)));
    if (existing?.named) throw nameTaken(input.name);
    if (Number(existing?.n ?? 0) >= limits.maxTests) throw tooMany(limits.maxTests);
    const [row] = await tx
      .insert(agentTests)
      .values({ id: newId(), tenantId, agentId, name: input.name, definition: input.definition })
      .returning();
    return row!;
  });
}

/** Replaces a case's definition (and name), one revision up; undefined when it does not exist. */
export async function updateAgentTest(
  db: Db,
  tenantId: string,
  agentId: string,
  id: string,
  input: AgentTestInput,
): Promise<AgentTestRow | undefined> {
  return withTenantScope(db, tenantId, async (tx) => {
    await lockAgentTests(tx, agentId);
    const [clash] = await tx
      .select({ id: agentTests.id })
      .from(agentTests)
      .where(and(eq(agentTests.agentId, agentId), eq(agentTests.name, input.name)));
    if (clash && clash.id !== id) throw nameTaken(input.name);
    const [row] = await tx
      .update(agentTests)
      .set({
        name: input.name,
        definition: input.definition,
        revision: sql`${agentTests.revision} + 1`,
        updatedAt: sql`now()`,
      })
      .where(and(eq(agentTests.tenantId, tenantId), eq(agentTests.agentId, agentId), eq(agentTests.id, id)))
      .returning();
    return row;
  });
}

export async function deleteAgentTest(db: Db, tenantId: string, agentId: string, id: string): Promise<boolean> {
  const rows = await withTenantScope(db, tenantId, (tx) =>
    tx
      .delete(agentTests)
      .where(and(eq(agentTests.tenantId, tenantId), eq(agentTests.agentId, agentId), eq(agentTests.id, id)))
      .returning({ id: agentTests.id }),
  );
  return rows.length > 0;
}

/**
 * Imports cases by name in one transaction: a known name gets the new definition (a revision up
 * when it changed), a new name is added, and with `replace` the agent's other cases are removed.
 * All or nothing: past `maxTests` nothing is written.
 *
 * @example
 * const { created, updated, removed } = await importAgentTests(db, tenantId, agentId, cases, 'merge', { maxTests: 200 });
 */
export async function importAgentTests(
  db: Db,
  tenantId: string,
  agentId: string,
  cases: AgentTestInput[],
  mode: 'merge' | 'replace',
  limits: { maxTests: number },
): Promise<{ created: number; updated: number; removed: number }> {
  return withTenantScope(db, tenantId, async (tx) => {
    await lockAgentTests(tx, agentId);
    const names = cases.map((c) => c.name);
    const removed =
      mode === 'replace'
        ? (
            await tx
              .delete(agentTests)
              .where(
                and(
                  eq(agentTests.tenantId, tenantId),
                  eq(agentTests.agentId, agentId),
                  names.length > 0 ? notInArray(agentTests.name, names) : undefined,
                ),
              )
              .returning({ id: agentTests.id })
          ).length
        : 0;
    const existing = await tx
      .select({ id: agentTests.id, name: agentTests.name, definition: agentTests.definition })
      .from(agentTests)
      .where(and(eq(agentTests.tenantId, tenantId), eq(agentTests.agentId, agentId)));
    const byName = new Map(existing.map((row) => [row.name, row]));
    const added = cases.filter((c) => !byName.has(c.name));
    if (existing.length + added.length > limits.maxTests) throw tooMany(limits.maxTests);
    let updated = 0;
    for (const input of cases) {
      const known = byName.get(input.name);
      if (!known) continue;
      if (JSON.stringify(known.definition) === JSON.stringify(input.definition)) continue;
      await tx
        .update(agentTests)
        .set({ definition: input.definition, revision: sql`${agentTests.revision} + 1`, updatedAt: sql`now()` })
        .where(eq(agentTests.id, known.id));
      updated++;
    }
    if (added.length > 0) {
      await tx
        .insert(agentTests)
        .values(added.map((c) => ({ id: newId(), tenantId, agentId, name: c.name, definition: c.definition })));
    }
    return { created: added.length, updated, removed };
  });
}

/** Turns an agent's publish gate on or off; undefined when the agent does not exist. */
export async function setRequirePassingTests(
  db: Db,
  tenantId: string,
  agentId: string,
  required: boolean,
): Promise<typeof agents.$inferSelect | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(agents)
      .set({ requirePassingTests: required, updatedAt: sql`now()` })
      .where(and(eq(agents.tenantId, tenantId), eq(agents.id, agentId)))
      .returning(),
  );
  return row;
}

export interface NewTestRun {
  agentId: string;
  agentVersion: number;
  model: string;
  judgeModel: string | null;
  repetitions: number;
  threshold: number;
  cases: PlannedTestCase[];
  createdBy: string | null;
}

/**
 * Records a queued test run, refusing a second active one of the same version and more than
 * `maxActivePerTenant` active ones of the tenant (409 `test_run_active`), in one transaction.
 *
 * @example
 * const run = await createTestRun(db, tenantId, { agentId, agentVersion: 3, model: 'agent', … }, { maxActivePerTenant: 5 });
 */
export async function createTestRun(
  db: Db,
  tenantId: string,
  input: NewTestRun,
  limits: { maxActivePerTenant: number; keepPerAgent?: number },
): Promise<TestRunRow> {
  return withTenantScope(db, tenantId, async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`test-runs:${tenantId}`}, 0))`);
    const active = await tx
      .select({ agentId: testRuns.agentId, agentVersion: testRuns.agentVersion })
      .from(testRuns)
      .where(and(eq(testRuns.tenantId, tenantId), inArray(testRuns.status, ['queued', 'running'])));
    if (active.some((r) => r.agentId === input.agentId && r.agentVersion === input.agentVersion)) {
      throw errors.conflict('test_run_active', `A test run of version ${input.agentVersion} is in progress`);
    }
    if (active.length >= limits.maxActivePerTenant) {
      throw errors.conflict(
        'test_run_active',
        `At most ${limits.maxActivePerTenant} test runs may be in progress at once; wait for one to finish`,
      );
    }
    const [row] = await tx
      .insert(testRuns)
      .values({ id: newId(), tenantId, ...input, caseCount: input.cases.length, heartbeatAt: sql`now()` })
      .returning();
    await pruneTestRuns(tx, tenantId, input.agentId, limits.keepPerAgent ?? KEPT_TEST_RUNS);
    return row!;
  });
}

/** Finished test runs kept per agent: older ones go with their results and test conversations. */
export const KEPT_TEST_RUNS = 50;

/**
 * Removes an agent's finished test runs beyond the newest `keep` (results by cascade) and their
 * test conversations (messages and runs by cascade): CI that tests every push never fills the
 * database. Bounded work per new run: at most the few runs that just fell off the end.
 */
async function pruneTestRuns(tx: Tx, tenantId: string, agentId: string, keep: number): Promise<void> {
  const old = await tx
    .select({ id: testRuns.id })
    .from(testRuns)
    .where(
      and(
        eq(testRuns.tenantId, tenantId),
        eq(testRuns.agentId, agentId),
        notInArray(testRuns.status, ['queued', 'running']),
      ),
    )
    .orderBy(desc(testRuns.createdAt), desc(testRuns.id))
    .offset(keep)
    .limit(20);
  if (old.length === 0) return;
  const ids = old.map((r) => r.id);
  await tx
    .delete(conversations)
    .where(and(eq(conversations.tenantId, tenantId), inArray(sql`${conversations.test}->>'testRunId'`, ids)));
  await tx.delete(testRuns).where(inArray(testRuns.id, ids));
}

/** Removes a test run that could not be queued (nothing half-written). */
export async function deleteTestRun(db: Db, tenantId: string, id: string): Promise<void> {
  await withTenantScope(db, tenantId, (tx) =>
    tx.delete(testRuns).where(and(eq(testRuns.tenantId, tenantId), eq(testRuns.id, id))),
  );
}

export async function getTestRun(db: Db, tenantId: string, id: string): Promise<TestRunRow | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select()
      .from(testRuns)
      .where(and(eq(testRuns.tenantId, tenantId), eq(testRuns.id, id))),
  );
  return row;
}

/** An agent's test runs, newest first (optionally of one version); `before`: the last id of the previous page. */
export async function listTestRuns(
  db: Db,
  tenantId: string,
  agentId: string,
  page: { limit: number; before?: string; version?: number },
): Promise<TestRunRow[]> {
  return withTenantScope(db, tenantId, (tx) =>
    tx
      .select()
      .from(testRuns)
      .where(
        and(
          eq(testRuns.tenantId, tenantId),
          eq(testRuns.agentId, agentId),
          page.version !== undefined ? eq(testRuns.agentVersion, page.version) : undefined,
          page.before ? lt(testRuns.id, page.before) : undefined,
        ),
      )
      .orderBy(desc(testRuns.id))
      .limit(page.limit),
  );
}

/** The newest test run of a version (its gate), or undefined. */
export async function latestTestRun(
  db: Db | Tx,
  tenantId: string,
  agentId: string,
  version: number,
): Promise<TestRunRow | undefined> {
  const [row] = await withTenantScope(db as Db, tenantId, (tx) =>
    tx
      .select()
      .from(testRuns)
      .where(and(eq(testRuns.tenantId, tenantId), eq(testRuns.agentId, agentId), eq(testRuns.agentVersion, version)))
      .orderBy(desc(testRuns.createdAt), desc(testRuns.id))
      .limit(1),
  );
  return row;
}

export async function listTestCaseResults(db: Db, tenantId: string, testRunId: string): Promise<TestCaseResultRow[]> {
  return withTenantScope(db, tenantId, (tx) =>
    tx
      .select()
      .from(testCaseResults)
      .where(and(eq(testCaseResults.tenantId, tenantId), eq(testCaseResults.testRunId, testRunId)))
      .orderBy(asc(testCaseResults.position)),
  );
}

/**
 * Takes a queued (or, after a crash, running) test run for a job: `running`, a fresh heartbeat,
 * and the positions whose results are stored already (a resumed run skips them). Undefined when
 * it is finished, cancelled or gone.
 */
export async function claimTestRun(
  db: Db,
  tenantId: string,
  id: string,
): Promise<{ run: TestRunRow; done: Set<number> } | undefined> {
  return withTenantScope(db, tenantId, async (tx) => {
    const [run] = await tx
      .update(testRuns)
      .set({ status: 'running', startedAt: sql`coalesce(${testRuns.startedAt}, now())`, heartbeatAt: sql`now()` })
      .where(and(eq(testRuns.tenantId, tenantId), eq(testRuns.id, id), inArray(testRuns.status, ['queued', 'running'])))
      .returning();
    if (!run) return undefined;
    const stored = await tx
      .select({ position: testCaseResults.position })
      .from(testCaseResults)
      .where(eq(testCaseResults.testRunId, id));
    return { run, done: new Set(stored.map((r) => r.position)) };
  });
}

/**
 * The runs still active in a test run's conversations (its turns in flight), oldest first: through
 * the conversations' test-run index and the runs' active index.
 *
 * @example
 * for (const run of await activeTestRunRuns(db, tenantId, testRunId)) await runService.cancel(run);
 */
export async function activeTestRunRuns(db: Db, tenantId: string, testRunId: string): Promise<Run[]> {
  const rows = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select({ run: runs })
      .from(runs)
      .innerJoin(conversations, eq(conversations.id, runs.conversationId))
      .where(
        and(
          eq(runs.tenantId, tenantId),
          eq(conversations.tenantId, tenantId),
          sql`${conversations.test} is not null`,
          sql`${conversations.test}->>'testRunId' = ${testRunId}`,
          isActiveRun(runs.status),
        ),
      )
      .orderBy(asc(runs.createdAt), asc(runs.id)),
  );
  return rows.map((row) => row.run);
}

export interface NewTestCaseResult {
  position: number;
  testId: string | null;
  revision: number | null;
  name: string;
  passed: boolean;
  passRate: number;
  attempts: unknown[];
  definition: Record<string, unknown>;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
}

/**
 * Stores one case's result (once: a repeated position is ignored) and brings the run's counts,
 * tokens and cost up to date from its results, with a fresh heartbeat. Returns the run as it is
 * now, or undefined when it was cancelled meanwhile (the result is then not kept).
 */
export async function storeTestCaseResult(
  db: Db,
  tenantId: string,
  testRunId: string,
  result: NewTestCaseResult,
): Promise<TestRunRow | undefined> {
  return withTenantScope(db, tenantId, async (tx) => {
    const [run] = await tx
      .select({ status: testRuns.status })
      .from(testRuns)
      .where(and(eq(testRuns.tenantId, tenantId), eq(testRuns.id, testRunId)))
      .for('update');
    if (run?.status !== 'running') return undefined;
    await tx
      .insert(testCaseResults)
      .values({ id: newId(), tenantId, testRunId, ...result })
      .onConflictDoNothing();
    const [updated] = await tx
      .update(testRuns)
      .set({
        completedCount: sql`(select count(*)::int from ${testCaseResults} r where r.test_run_id = ${testRunId})`,
        passedCount: sql`(select count(*)::int from ${testCaseResults} r where r.test_run_id = ${testRunId} and r.passed)`,
        failedCount: sql`(select count(*)::int from ${testCaseResults} r where r.test_run_id = ${testRunId} and not r.passed)`,
        inputTokens: sql`(select coalesce(sum(r.input_tokens), 0)::int from ${testCaseResults} r where r.test_run_id = ${testRunId})`,
        outputTokens: sql`(select coalesce(sum(r.output_tokens), 0)::int from ${testCaseResults} r where r.test_run_id = ${testRunId})`,
        // Unknown as soon as one result's cost is: a partial sum would understate it.
        costUsd: sql`(select case when bool_or(r.cost_usd is null) then null else coalesce(sum(r.cost_usd), 0) end from ${testCaseResults} r where r.test_run_id = ${testRunId})`,
        heartbeatAt: sql`now()`,
      })
      .where(eq(testRuns.id, testRunId))
      .returning();
    return updated;
  });
}

/** A sign of life of the job working on a running test run (the sweeper leaves it alone). */
export async function heartbeatTestRun(db: Db, tenantId: string, id: string): Promise<boolean> {
  const rows = await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(testRuns)
      .set({ heartbeatAt: sql`now()` })
      .where(and(eq(testRuns.tenantId, tenantId), eq(testRuns.id, id), eq(testRuns.status, 'running')))
      .returning({ id: testRuns.id }),
  );
  return rows.length > 0;
}

/**
 * Ends a test run (`passed`, `failed`, `error` with its reason, or `cancelled`) unless it ended
 * already; returns the ended run, or undefined when it was final before.
 */
export async function finishTestRun(
  db: Db,
  tenantId: string,
  id: string,
  status: Exclude<TestRunStatusValue, 'queued' | 'running'>,
  error?: { code: string; message: string },
): Promise<TestRunRow | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(testRuns)
      .set({ status, finishedAt: sql`now()`, ...(error ? { error } : {}) })
      .where(
        and(eq(testRuns.tenantId, tenantId), eq(testRuns.id, id), notInArray(testRuns.status, FINAL_TEST_RUN_STATUSES)),
      )
      .returning(),
  );
  return row;
}

/**
 * Test runs a dead process left `queued` or `running` with no sign of life since `staleBefore`
 * (the sweeper queues them again): one indexed query, at most `limit`.
 */
export async function staleTestRuns(
  db: Db,
  staleBefore: Date,
  limit: number,
): Promise<{ id: string; tenantId: string }[]> {
  return withSystemScope(db, 'test run sweeper', (tx) =>
    tx
      .select({ id: testRuns.id, tenantId: testRuns.tenantId })
      .from(testRuns)
      .where(and(sql`${testRuns.status} in ('queued', 'running')`, lt(testRuns.heartbeatAt, staleBefore)))
      .orderBy(asc(testRuns.heartbeatAt))
      .limit(limit),
  );
}

/**
 * Marks a stale test run as handed to a new job (a fresh heartbeat), unless something touched it
 * since the sweeper read it; true when this call did (the sweeper then queues it once).
 */
export async function touchStaleTestRun(db: Db, tenantId: string, id: string, staleBefore: Date): Promise<boolean> {
  const rows = await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(testRuns)
      .set({ heartbeatAt: sql`now()` })
      .where(
        and(
          eq(testRuns.tenantId, tenantId),
          eq(testRuns.id, id),
          inArray(testRuns.status, ['queued', 'running']),
          lt(testRuns.heartbeatAt, staleBefore),
        ),
      )
      .returning({ id: testRuns.id }),
  );
  return rows.length > 0;
}
