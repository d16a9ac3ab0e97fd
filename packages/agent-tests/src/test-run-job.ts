import type { AgentTestDefinition, TestRun } from '@agentry/contract/schemas';
import {
  claimTestRun,
  finishTestRun,
  getAgentVersion,
  getTenant,
  getTestRun,
  type PlannedTestCase,
  staleTestRuns,
  storeTestCaseResult,
  type Tenant,
  type TestRunRow,
  touchStaleTestRun,
} from '@agentry/db';
import { isAppError } from '@agentry/errors';
import { createModel, type ModelProviderSettings, resolveModelSpec } from '@agentry/models';
import {
  type JobHandler,
  type JobQueue,
  type JobWorker,
  type SweptWorker,
  startSweptWorker,
  type WorkerOptions,
} from '@agentry/queue';
import { loadTenantModelSettings, prepareVersion } from '@agentry/run-service';
import type { SecretBox } from '@agentry/secrets';
import { checkTestDefinition } from './definition.ts';
import { createJudge, type Judge } from './judge.ts';
import { type CaseDependencies, type PlayedAttempt, playCase, TestRunStopped } from './run-test-case.ts';

/** The payload of a test run's job. */
export interface TestRunJobData {
  tenantId: string;
  testRunId: string;
}

/** The BullMQ queue of test runs (same Redis prefix as runs, its own queue). */
export const TEST_RUN_QUEUE_NAME = 'agent-tests';

/** Test runs at once per process: each starts real runs, which the tenant's slots bound too. */
export const DEFAULT_TEST_RUN_CONCURRENCY = 2;

/** Cases of one test run played at once. */
export const DEFAULT_CASE_CONCURRENCY = 2;

export interface TestRunDependencies extends CaseDependencies {
  models: ModelProviderSettings;
  secretBox?: SecretBox | undefined;
  /** The egress-guarded fetch for a tenant's own model base URL (the judge's). */
  guardedFetch?: typeof fetch | undefined;
  /** The operator's default judge (`JUDGE_MODEL`); else the run's model. */
  judgeModel?: string | undefined;
  caseConcurrency?: number;
}

/** A test run's progress on its own event stream (keyed by its id), for live views. */
export type TestRunEvent =
  | { type: 'test-run-started'; case_count: number }
  | {
      type: 'test-case';
      name: string;
      position: number;
      passed: boolean;
      completed_count: number;
      passed_count: number;
      failed_count: number;
    }
  | { type: 'test-run-finished'; status: TestRun['status']; final: true };

/**
 * Plays a test run: each planned case (those without a stored result: a resumed job skips what
 * is done) `repetitions` times, `caseConcurrency` cases at once; a case passes when the share of
 * passing repetitions reaches the threshold. Each case's result is stored as it ends (counts,
 * tokens and cost with it) and announced on the run's event stream; the run ends `passed` or
 * `failed`. A cancelled run stops (the API cancels its turns in flight). An infrastructure fault throws (the job is
 * retried and resumes); anything else ends the run `error` with its reason.
 *
 * @example
 * await executeTestRun(deps, { tenantId, testRunId });
 */
export async function executeTestRun(deps: TestRunDependencies, data: TestRunJobData): Promise<void> {
  const claimed = await claimTestRun(deps.db, data.tenantId, data.testRunId);
  if (!claimed) return;
  const { run, done } = claimed;
  const tenant = await getTenant(deps.db, run.tenantId);
  if (!tenant) return;
  const publish = (event: TestRunEvent) => deps.events.publish(run.id, event).catch(() => '');
  try {
    await publish({ type: 'test-run-started', case_count: run.caseCount });
    const judge = await judgeFor(deps, tenant, run);
    const plan = run.cases.map((planned, position) => ({ planned, position })).filter((c) => !done.has(c.position));
    await eachLimited(plan, deps.caseConcurrency ?? DEFAULT_CASE_CONCURRENCY, async ({ planned, position }) => {
      const result = await playPlanned(deps, tenant, run, planned, judge);
      const updated = await storeTestCaseResult(deps.db, run.tenantId, run.id, { position, ...result });
      if (!updated) throw new TestRunStopped();
      await publish({
        type: 'test-case',
        name: planned.name,
        position,
        passed: result.passed,
        completed_count: updated.completedCount,
        passed_count: updated.passedCount,
        failed_count: updated.failedCount,
      });
    });
    const ended = await finishTestRun(deps.db, run.tenantId, run.id, await verdictOf(deps, run));
    if (ended) await publish({ type: 'test-run-finished', status: ended.status, final: true });
  } catch (error) {
    if (error instanceof TestRunStopped) return;
    if (isAppError(error) && error.isRetryable) throw error;
    const message = isAppError(error) ? error.message : 'The test run failed unexpectedly';
    const ended = await finishTestRun(deps.db, run.tenantId, run.id, 'error', {
      code: isAppError(error) ? error.code : 'internal_error',
      message,
    });
    if (ended) await publish({ type: 'test-run-finished', status: 'error', final: true });
    if (!isAppError(error)) throw error;
  }
}

/** `failed` when any case failed, from the stored results (a resumed run counts the earlier ones). */
async function verdictOf(deps: TestRunDependencies, run: TestRunRow): Promise<'passed' | 'failed'> {
  const now = await getTestRun(deps.db, run.tenantId, run.id);
  if (now?.status !== 'running') throw new TestRunStopped();
  return now.failedCount > 0 || now.completedCount < now.caseCount ? 'failed' : 'passed';
}

type CaseResult = Omit<Parameters<typeof storeTestCaseResult>[3], 'position'>;

async function playPlanned(
  deps: TestRunDependencies,
  tenant: Tenant,
  run: TestRunRow,
  planned: PlannedTestCase,
  judge: Judge | undefined,
): Promise<CaseResult> {
  const base = {
    testId: planned.testId,
    revision: planned.revision,
    name: planned.name,
    definition: planned.definition,
  };
  const checked = checkTestDefinition(planned.definition);
  if (!checked.ok) {
    const detail = checked.issues.map((i) => `${i.path || '/'} ${i.message}`).join('; ');
    return {
      ...base,
      passed: false,
      passRate: 0,
      attempts: [invalidAttempt(`The case is not valid: ${detail}`)],
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
    };
  }
  const definition: AgentTestDefinition = checked.definition;
  const attempts: PlayedAttempt[] = [];
  for (let repetition = 1; repetition <= run.repetitions; repetition++) {
    attempts.push(await playCase(deps, { tenant, testRun: run, definition, repetition, ...(judge ? { judge } : {}) }));
  }
  const passRate = attempts.filter((a) => a.passed).length / attempts.length;
  const costs = attempts.map((a) => a.costUsd);
  return {
    ...base,
    // A float share against a float threshold: 2 of 3 must pass a threshold of 0.66…7.
    passed: passRate + 1e-9 >= run.threshold,
    passRate,
    attempts: attempts.map(({ costUsd: _cost, ...attempt }) => attempt),
    inputTokens: attempts.reduce((sum, a) => sum + a.usage.input_tokens, 0),
    outputTokens: attempts.reduce((sum, a) => sum + a.usage.output_tokens, 0),
    costUsd: costs.includes(null) ? null : costs.reduce<number>((sum, c) => sum + (c ?? 0), 0),
  };
}

function invalidAttempt(error: string) {
  return {
    repetition: 1,
    passed: false,
    conversation_id: null,
    turns: [],
    error,
    usage: { input_tokens: 0, output_tokens: 0 },
  };
}

/**
 * The rubric judge: the run's `judge_model`, else the operator's `JUDGE_MODEL`, else the model the
 * cases run on. Undefined when no case has a rubric, or when that model cannot be used here (each
 * rubric then fails saying so).
 */
async function judgeFor(deps: TestRunDependencies, tenant: Tenant, run: TestRunRow): Promise<Judge | undefined> {
  if (!run.cases.some((c) => hasRubric(c.definition))) return undefined;
  try {
    const settings = await loadTenantModelSettings(deps.db, deps, tenant);
    const spec = run.judgeModel ?? deps.judgeModel ?? (run.model !== 'agent' ? run.model : undefined);
    let resolved: ReturnType<typeof resolveModelSpec>;
    if (spec) {
      resolved = resolveModelSpec(spec, settings, '/judge_model');
    } else {
      const version = await getAgentVersion(deps.db, tenant.id, run.agentId, run.agentVersion);
      if (!version) return undefined;
      resolved = (await prepareVersion(deps.db, deps, tenant, version)).model;
    }
    if (resolved.guarded && !deps.guardedFetch) return undefined;
    const model = createModel(
      resolved,
      settings,
      resolved.guarded && deps.guardedFetch ? { fetch: deps.guardedFetch } : {},
    );
    return createJudge(model);
  } catch (error) {
    if (isAppError(error) && !error.isRetryable) return undefined;
    throw error;
  }
}

/** Whether a planned case grades a reply with a rubric (stored data: read defensively). */
function hasRubric(definition: Record<string, unknown>): boolean {
  const turns = Array.isArray(definition.turns) ? (definition.turns as Array<{ expect?: unknown }>) : [];
  return turns.some((turn) => Array.isArray(turn?.expect) && turn.expect.some((e) => e?.type === 'rubric'));
}

/** Runs `work` over `items`, at most `limit` at once; the first failure stops taking new ones and is thrown. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (!failure && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  if (failure) throw failure.error;
}

export interface TestRunWorkerOptions {
  deps: TestRunDependencies;
  queue: JobQueue<TestRunJobData>;
  startWorker(handler: JobHandler<TestRunJobData>, options: WorkerOptions): JobWorker;
  concurrency?: number;
  /** Test runs silent this long while `queued`/`running` are queued again (default 10 min). */
  staleAfterMs?: number;
  /** How often the sweeper looks (default 60 s); 0 turns it off. */
  sweepIntervalMs?: number;
  onError?(error: unknown): void;
}

export type TestRunWorker = SweptWorker;

/**
 * Starts the test-run consumer (BullMQ's worker or the in-process runner's) and a low-rate sweeper
 * that queues again test runs a dead process left behind (one indexed query a pass, ≤ 100).
 *
 * @example
 * const tests = startTestRunWorker({ deps, queue, startWorker: (h, o) => startBullWorker(testsBull, h, o) });
 */
export function startTestRunWorker(options: TestRunWorkerOptions): TestRunWorker {
  const staleAfterMs = options.staleAfterMs ?? 10 * 60_000;
  const sweep = async () => {
    const before = new Date(Date.now() - staleAfterMs);
    const stale = await staleTestRuns(options.deps.db, before, 100);
    let queued = 0;
    for (const run of stale) {
      // Touched first: a run waiting in a busy queue is not queued again at every pass.
      if (!(await touchStaleTestRun(options.deps.db, run.tenantId, run.id, before))) continue;
      await options.queue.enqueue(`${run.id}-s${Date.now()}`, { tenantId: run.tenantId, testRunId: run.id });
      queued++;
    }
    return queued;
  };
  return startSweptWorker<TestRunJobData>({
    startWorker: options.startWorker,
    handler: (job) => executeTestRun(options.deps, job.data),
    concurrency: options.concurrency ?? DEFAULT_TEST_RUN_CONCURRENCY,
    sweep,
    sweepIntervalMs: options.sweepIntervalMs ?? 60_000,
    ...(options.onError ? { onError: options.onError } : {}),
  });
}
