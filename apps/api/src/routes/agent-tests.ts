import { checkTestDefinition, type GateState, type TestRunJobData, testGate } from '@agentry/agent-tests';
import { PG_INTEGER_MAX } from '@agentry/contract';
import {
  AGENT_TEST_LIMITS,
  AgentSettingsBody,
  type AgentTestDefinition,
  AgentTestDefinitionSchema,
  ImportAgentTestsBody,
  NewTestRunBody,
} from '@agentry/contract/schemas';
import {
  type Agent,
  type AgentTestRow,
  activeTestRunRuns,
  createAgentTest,
  createTestRun,
  deleteAgentTest,
  deleteTestRun,
  finishTestRun,
  getAgent,
  getAgentTest,
  getAgentVersion,
  getTestRun,
  importAgentTests,
  isId,
  listAgentTests,
  listTestCaseResults,
  listTestRuns,
  type PlannedTestCase,
  setRequirePassingTests,
  type TestCaseResultRow,
  type TestRunRow,
  updateAgentTest,
} from '@agentry/db';
import { type AppError, errors, type FieldIssue, isAppError } from '@agentry/errors';
import { resolveModelSpec } from '@agentry/models';
import type { JobQueue } from '@agentry/queue';
import { loadTenantModelSettings, type RunService } from '@agentry/run-service';
import { type Context, Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { audit } from '../http/audit.ts';
import type { AuthVariables, Principal } from '../http/auth.ts';
import { readJson, readJsonValue } from '../http/body.ts';
import { streamLiveEvents } from '../http/live-stream.ts';
import { doc, PAGE_QUERY, type ParamDoc, ref, SSE_SCHEMA } from '../http/openapi.ts';
import { pageOf, readPage } from '../http/pagination.ts';
import { acquireEventStream } from '../http/stream-slots.ts';
import { agentView } from '../http/views.ts';

/** What the test routes need besides the common dependencies: where test runs are queued. */
export interface AgentTestsApiDeps {
  queue: JobQueue<TestRunJobData>;
  /** Test runs in progress at once per tenant (`TEST_RUNS_PER_TENANT`). */
  maxActivePerTenant: number;
}

type Ctx = Context<{ Variables: AuthVariables }>;

const agentParam: Record<string, ParamDoc> = { id: { description: 'The agent id', resource: 'agent' } };
const testParams: Record<string, ParamDoc> = {
  ...agentParam,
  testId: { description: 'The test’s id', resource: 'agent_test', schema: { type: 'string', format: 'uuid' } },
};
const runParams: Record<string, ParamDoc> = {
  ...agentParam,
  runId: { description: 'The test run’s id', resource: 'test_run', schema: { type: 'string', format: 'uuid' } },
};
const versionParams: Record<string, ParamDoc> = {
  ...agentParam,
  n: { description: 'The version number', resource: 'agent_version', schema: { type: 'integer', minimum: 1 } },
};

const EXAMPLE_TEST: AgentTestDefinition = {
  name: 'Refund over the limit asks for approval',
  turns: [
    {
      user: 'Please refund order 1042, it arrived broken.',
      expect: [
        {
          type: 'tool_called',
          tool: 'refund_order',
          arguments: { type: 'object', properties: { order_id: { const: '1042' } }, required: ['order_id'] },
        },
        { type: 'reply_contains', text: 'refund' },
      ],
    },
  ],
  fixtures: [{ tool: 'refund_order', output: { status: 'refunded', amount: 59 } }],
};

export function testView(row: AgentTestRow) {
  return {
    id: row.id,
    object: 'agent_test' as const,
    agent_id: row.agentId,
    revision: row.revision,
    definition: row.definition,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function testRunView(row: TestRunRow, results?: TestCaseResultRow[]) {
  return {
    id: row.id,
    object: 'test_run' as const,
    agent_id: row.agentId,
    agent_version: row.agentVersion,
    status: row.status,
    model: row.model,
    judge_model: row.judgeModel,
    repetitions: row.repetitions,
    threshold: row.threshold,
    case_count: row.caseCount,
    completed_count: row.completedCount,
    passed_count: row.passedCount,
    failed_count: row.failedCount,
    usage: { input_tokens: row.inputTokens, output_tokens: row.outputTokens },
    cost_usd: row.costUsd,
    error: row.error ?? null,
    created_at: row.createdAt.toISOString(),
    started_at: row.startedAt?.toISOString() ?? null,
    finished_at: row.finishedAt?.toISOString() ?? null,
    ...(results
      ? {
          results: results.map((r) => ({
            test_id: r.testId,
            revision: r.revision,
            name: r.name,
            passed: r.passed,
            pass_rate: r.passRate,
            attempts: r.attempts,
            definition: r.definition,
          })),
        }
      : {}),
  };
}

export function gateView(agent: Agent, version: number, gate: GateState) {
  return {
    object: 'test_gate' as const,
    agent_id: agent.id,
    version,
    required: gate.required,
    state: gate.state,
    test_run: gate.testRun ? testRunView(gate.testRun) : null,
    failing_cases: gate.failingCases,
  };
}

/**
 * 409 `tests_failed` for a publish the gate refuses, naming the state, the test run and the
 * failing cases (problem+json extension members).
 */
export function testsFailed(version: number, gate: GateState): AppError {
  const why = {
    missing: `version ${version} has no test run: run its tests first`,
    running: `the tests of version ${version} are still running`,
    failing: `the latest test run of version ${version} did not pass${gate.failingCases.length ? ` (failing: ${gate.failingCases.slice(0, 5).join(', ')}${gate.failingCases.length > 5 ? ', …' : ''})` : ''}`,
    passing: '',
  }[gate.state];
  return errors.of({
    code: 'tests_failed',
    message: `This agent requires passing tests to publish: ${why}. An owner may publish anyway with a reason.`,
    category: 'user',
    details: {
      state: gate.state,
      test_run_id: gate.testRun?.id ?? null,
      failing_cases: gate.failingCases,
    },
  });
}

/** Owners (and secret keys with every scope) may publish past the gate; others may not. */
export function assertMayForcePublish(principal: Principal): void {
  const owner = principal.user ? principal.user.role === 'owner' : principal.scopes.includes('*');
  if (!owner) {
    throw errors.of({
      code: 'insufficient_role',
      message: 'Only owners may publish past failing tests',
      category: 'user',
    });
  }
}

/** A force publish's reason, required and non-empty. */
export function forceReason(reason: string | undefined, field: string): string {
  if (!reason) {
    throw errors.validation('A reason is required to publish past the tests', [
      { path: field, code: 'required', message: 'Say why this version goes live without passing tests' },
    ]);
  }
  return reason;
}

/**
 * Test conversations that gate publishing (issue 22), under `/v1/agents/{id}`: the agent's cases
 * (CRUD, export, import), test runs (started as background jobs, listed, read with every case's
 * result, followed live, cancelled), a version's gate and the agent's `require_passing_tests`.
 */
export function agentTestRoutes(deps: ApiDeps, runs: RunService) {
  const app = new Hono<{ Variables: AuthVariables }>();
  const tests = () => {
    if (!deps.agentTests) throw errors.unavailable('queue_unavailable', 'Test runs are not set up here');
    return deps.agentTests;
  };
  const agentOf = async (c: Ctx) => {
    const id = c.req.param('id') ?? '';
    const agent = isId(id) ? await getAgent(deps.db, c.var.tenant.id, id) : undefined;
    if (!agent) throw errors.notFound('agent', id);
    return agent;
  };
  const testOf = async (c: Ctx) => {
    const agent = await agentOf(c);
    const id = c.req.param('testId') ?? '';
    const test = isId(id) ? await getAgentTest(deps.db, agent.tenantId, agent.id, id) : undefined;
    if (!test) throw errors.notFound('agent_test', id);
    return { agent, test };
  };
  const runOf = async (c: Ctx) => {
    const agent = await agentOf(c);
    const id = c.req.param('runId') ?? '';
    const run = isId(id) ? await getTestRun(deps.db, agent.tenantId, id) : undefined;
    if (!run || run.agentId !== agent.id) throw errors.notFound('test_run', id);
    return { agent, run };
  };

  app.patch(
    '/:id',
    doc({
      operationId: 'updateAgentSettings',
      tag: 'Agents',
      summary: 'Change an agent’s settings (`require_passing_tests`)',
      description:
        'With `require_passing_tests`, publishing a version needs a passing test run of it (409 `tests_failed`).',
      auth: 'tenant',
      path: agentParam,
      body: { schema: AgentSettingsBody, example: { require_passing_tests: true } },
      responses: { 200: { description: 'The agent', schema: ref('Agent') } },
      errors: ['agent_not_found'],
    }),
  );
  app.patch('/:id', async (c) => {
    const agent = await agentOf(c);
    const body = await readJson(c, AgentSettingsBody);
    if (body.require_passing_tests === undefined || body.require_passing_tests === agent.requirePassingTests) {
      return c.json(agentView(agent));
    }
    const updated = await setRequirePassingTests(deps.db, agent.tenantId, agent.id, body.require_passing_tests);
    if (!updated) throw errors.notFound('agent', agent.id);
    await audit(deps.db, c, 'agent.settings_changed', { type: 'agent', id: agent.id }, { ...body });
    return c.json(agentView(updated));
  });

  app.get(
    '/:id/tests',
    doc({
      operationId: 'listAgentTests',
      tag: 'Agent tests',
      summary: 'An agent’s test cases, by name',
      auth: 'tenant',
      path: agentParam,
      responses: { 200: { description: 'Every case of the agent', schema: ref('AgentTestList') } },
      errors: ['agent_not_found'],
    }),
  );
  app.get('/:id/tests', async (c) => {
    const agent = await agentOf(c);
    const rows = await listAgentTests(deps.db, agent.tenantId, agent.id);
    return c.json({ object: 'list', data: rows.map(testView), next_cursor: null });
  });

  app.post(
    '/:id/tests',
    doc({
      operationId: 'createAgentTest',
      tag: 'Agent tests',
      summary: 'Add a test case',
      description:
        'User turns, tool fixtures (no real request is sent during a test) and expectations per turn. Names are unique per agent.',
      auth: 'tenant',
      path: agentParam,
      body: { schema: AgentTestDefinitionSchema, example: EXAMPLE_TEST },
      responses: { 201: { description: 'The stored case', schema: ref('AgentTest') } },
      errors: ['agent_not_found'],
    }),
  );
  app.post('/:id/tests', async (c) => {
    const agent = await agentOf(c);
    const definition = checked(await readJsonValue(c), '');
    const row = await createAgentTest(
      deps.db,
      agent.tenantId,
      agent.id,
      { name: definition.name, definition },
      { maxTests: AGENT_TEST_LIMITS.cases },
    );
    await audit(deps.db, c, 'agent_test.created', { type: 'agent', id: agent.id }, { test_id: row.id, name: row.name });
    return c.json(testView(row), 201);
  });

  app.get(
    '/:id/tests/export',
    doc({
      operationId: 'exportAgentTests',
      tag: 'Agent tests',
      summary: 'Every case of the agent as one JSON document (for `…/tests/import` or the CLI’s `--cases`)',
      auth: 'tenant',
      path: agentParam,
      responses: { 200: { description: 'The cases', schema: ref('AgentTestsExport') } },
      errors: ['agent_not_found'],
    }),
  );
  app.get('/:id/tests/export', async (c) => {
    const agent = await agentOf(c);
    const rows = await listAgentTests(deps.db, agent.tenantId, agent.id);
    c.header('content-disposition', `attachment; filename="agent-tests-${agent.id}.json"`);
    return c.json({ object: 'agent_tests', agent_id: agent.id, tests: rows.map((r) => r.definition) });
  });

  app.post(
    '/:id/tests/import',
    doc({
      operationId: 'importAgentTests',
      tag: 'Agent tests',
      summary: 'Import cases by name (merge, or replace all)',
      description:
        'All or nothing: every case is checked first (issues name `/tests/<i>/…`). A known name gets the new definition; `replace` removes the cases not in the file.',
      auth: 'tenant',
      path: agentParam,
      body: { schema: ImportAgentTestsBody, example: { tests: [EXAMPLE_TEST], mode: 'merge' } },
      responses: {
        200: {
          description: 'What changed',
          schema: {
            type: 'object',
            properties: { created: { type: 'integer' }, updated: { type: 'integer' }, removed: { type: 'integer' } },
          },
        },
      },
      errors: ['agent_not_found'],
    }),
  );
  app.post('/:id/tests/import', async (c) => {
    const agent = await agentOf(c);
    const body = await readJson(c, ImportAgentTestsBody);
    const definitions = checkedAll(body.tests, '/tests');
    const names = new Set<string>();
    definitions.forEach((d, i) => {
      if (names.has(d.name)) {
        throw errors.validation('Two cases have the same name', [
          { path: `/tests/${i}/name`, code: 'duplicate', message: `"${d.name}" appears twice` },
        ]);
      }
      names.add(d.name);
    });
    const counts = await importAgentTests(
      deps.db,
      agent.tenantId,
      agent.id,
      definitions.map((d) => ({ name: d.name, definition: d })),
      body.mode ?? 'merge',
      { maxTests: AGENT_TEST_LIMITS.cases },
    );
    await audit(
      deps.db,
      c,
      'agent_test.imported',
      { type: 'agent', id: agent.id },
      { ...counts, mode: body.mode ?? 'merge' },
    );
    return c.json(counts);
  });

  app.get(
    '/:id/tests/:testId',
    doc({
      operationId: 'getAgentTest',
      tag: 'Agent tests',
      summary: 'A test case',
      auth: 'tenant',
      path: testParams,
      responses: { 200: { description: 'The case', schema: ref('AgentTest') } },
      errors: ['agent_not_found', 'agent_test_not_found'],
    }),
  );
  app.get('/:id/tests/:testId', async (c) => c.json(testView((await testOf(c)).test)));

  app.put(
    '/:id/tests/:testId',
    doc({
      operationId: 'replaceAgentTest',
      tag: 'Agent tests',
      summary: 'Replace a test case (its revision goes up)',
      auth: 'tenant',
      path: testParams,
      body: { schema: AgentTestDefinitionSchema, example: EXAMPLE_TEST },
      responses: { 200: { description: 'The stored case', schema: ref('AgentTest') } },
      errors: ['agent_not_found', 'agent_test_not_found'],
    }),
  );
  app.put('/:id/tests/:testId', async (c) => {
    const { agent, test } = await testOf(c);
    const definition = checked(await readJsonValue(c), '');
    const row = await updateAgentTest(deps.db, agent.tenantId, agent.id, test.id, {
      name: definition.name,
      definition,
    });
    if (!row) throw errors.notFound('agent_test', test.id);
    await audit(
      deps.db,
      c,
      'agent_test.updated',
      { type: 'agent', id: agent.id },
      { test_id: row.id, revision: row.revision },
    );
    return c.json(testView(row));
  });

  app.delete(
    '/:id/tests/:testId',
    doc({
      operationId: 'deleteAgentTest',
      tag: 'Agent tests',
      summary: 'Delete a test case (results of earlier runs keep it)',
      auth: 'tenant',
      path: testParams,
      responses: { 204: { description: 'Deleted' } },
      errors: ['agent_not_found', 'agent_test_not_found'],
    }),
  );
  app.delete('/:id/tests/:testId', async (c) => {
    const { agent, test } = await testOf(c);
    if (!(await deleteAgentTest(deps.db, agent.tenantId, agent.id, test.id)))
      throw errors.notFound('agent_test', test.id);
    await audit(
      deps.db,
      c,
      'agent_test.deleted',
      { type: 'agent', id: agent.id },
      { test_id: test.id, name: test.name },
    );
    return c.body(null, 204);
  });

  app.post(
    '/:id/test-runs',
    doc({
      operationId: 'startTestRun',
      tag: 'Agent tests',
      summary: 'Run the agent’s tests against a version (a background job)',
      description:
        'Every stored case (or `test_ids`, or the `cases` sent) is played as real runs of test conversations pinned to the version — its tools answer from the fixtures, nothing is sent — `repetitions` times; a case passes when the share of passing repetitions reaches `threshold`. Follow it with `…/test-runs/{runId}/events`.',
      auth: 'tenant',
      path: agentParam,
      body: { schema: NewTestRunBody, example: { version: 3, repetitions: 3, threshold: 0.66 } },
      responses: { 202: { description: 'Queued', schema: ref('TestRun') } },
      errors: [
        'agent_not_found',
        'agent_version_not_found',
        'test_run_active',
        'queue_unavailable',
        'model_not_configured',
      ],
    }),
  );
  app.post('/:id/test-runs', async (c) => {
    const agent = await agentOf(c);
    const body = await readJson(c, NewTestRunBody);
    const settings = tests();
    const versionNumber = body.version ?? agent.latestVersion;
    const version = await getAgentVersion(deps.db, agent.tenantId, agent.id, versionNumber);
    if (!version) throw errors.notFound('agent_version', String(versionNumber));
    const cases = await plannedCases(deps, agent, body);
    const model = body.model ?? 'agent';
    // A model the platform cannot use is refused now, not discovered by every case.
    if (model !== 'agent' || body.judge_model) {
      const models = await loadTenantModelSettings(deps.db, deps, c.var.tenant);
      if (model !== 'agent') usableModel(model, models, '/model');
      if (body.judge_model) usableModel(body.judge_model, models, '/judge_model');
    }
    const run = await createTestRun(
      deps.db,
      agent.tenantId,
      {
        agentId: agent.id,
        agentVersion: version.version,
        model,
        judgeModel: body.judge_model ?? null,
        repetitions: body.repetitions ?? 1,
        threshold: body.threshold ?? 1,
        cases,
        createdBy: c.var.principal.user?.id ?? c.var.apiKeyId ?? null,
      },
      { maxActivePerTenant: settings.maxActivePerTenant },
    );
    try {
      await settings.queue.enqueue(run.id, { tenantId: run.tenantId, testRunId: run.id });
    } catch (error) {
      await deleteTestRun(deps.db, run.tenantId, run.id);
      throw error;
    }
    await audit(
      deps.db,
      c,
      'test_run.started',
      { type: 'agent', id: agent.id },
      {
        test_run_id: run.id,
        version: run.agentVersion,
        cases: run.caseCount,
        model,
      },
    );
    c.header('location', `/v1/agents/${agent.id}/test-runs/${run.id}`);
    return c.json(testRunView(run), 202);
  });

  app.get(
    '/:id/test-runs',
    doc({
      operationId: 'listTestRuns',
      tag: 'Agent tests',
      summary: 'An agent’s test runs, newest first',
      auth: 'tenant',
      path: agentParam,
      query: {
        ...PAGE_QUERY,
        version: { description: 'Only this version’s', schema: { type: 'integer', minimum: 1 } },
      },
      responses: { 200: { description: 'A page of test runs', schema: ref('TestRunList') } },
      errors: ['agent_not_found', 'invalid_query'],
    }),
  );
  app.get('/:id/test-runs', async (c) => {
    const agent = await agentOf(c);
    const page = readPage(c);
    const rawVersion = c.req.query('version');
    const version = rawVersion === undefined ? undefined : Number(rawVersion);
    if (version !== undefined && (!Number.isInteger(version) || version < 1 || version > PG_INTEGER_MAX)) {
      throw errors.badRequest('invalid_query', '`version` is a version number');
    }
    const rows = await listTestRuns(deps.db, agent.tenantId, agent.id, {
      ...page,
      limit: page.limit + 1,
      ...(version !== undefined ? { version } : {}),
    });
    return c.json(pageOf(rows, page, (row) => testRunView(row)));
  });

  app.get(
    '/:id/test-runs/:runId',
    doc({
      operationId: 'getTestRun',
      tag: 'Agent tests',
      summary: 'A test run with every case’s result (each repetition’s turns, observations and verdicts)',
      auth: 'tenant',
      path: runParams,
      responses: { 200: { description: 'The test run', schema: ref('TestRun') } },
      errors: ['agent_not_found', 'test_run_not_found'],
    }),
  );
  app.get('/:id/test-runs/:runId', async (c) => {
    const { run } = await runOf(c);
    return c.json(testRunView(run, await listTestCaseResults(deps.db, run.tenantId, run.id)));
  });

  app.get(
    '/:id/test-runs/:runId/events',
    doc({
      operationId: 'followTestRun',
      tag: 'Agent tests',
      summary: 'A test run’s progress live (SSE)',
      description:
        'Events from the start (resume with `Last-Event-ID`): `test-run-started` (`case_count`), `test-case` (`name`, `passed`, the counts) per finished case, and `test-run-finished` (`status`), the last.',
      auth: 'tenant',
      path: runParams,
      responses: { 200: { description: 'The events', schema: SSE_SCHEMA, contentType: 'text/event-stream' } },
      errors: ['agent_not_found', 'test_run_not_found', 'too_many_streams'],
    }),
  );
  app.get('/:id/test-runs/:runId/events', async (c) => {
    const { run } = await runOf(c);
    const release = await acquireEventStream(c, deps);
    // An ended run's stream may have expired: its end is said at once.
    const ended = run.status !== 'queued' && run.status !== 'running';
    return streamLiveEvents(c, deps.events, run.id, release, (event) => event, deps.liveStreams, {
      fromStart: true,
      ...(ended ? { only: { type: 'test-run-finished', status: run.status, final: true } } : {}),
    });
  });

  app.post(
    '/:id/test-runs/:runId/cancel',
    doc({
      operationId: 'cancelTestRun',
      tag: 'Agent tests',
      summary: 'Cancel a test run (the runs of its turns in flight are cancelled too)',
      auth: 'tenant',
      path: runParams,
      responses: { 200: { description: 'The test run', schema: ref('TestRun') } },
      errors: ['agent_not_found', 'test_run_not_found'],
    }),
  );
  app.post('/:id/test-runs/:runId/cancel', async (c) => {
    const { agent, run } = await runOf(c);
    const ended = await finishTestRun(deps.db, run.tenantId, run.id, 'cancelled');
    if (ended) {
      await deps.events
        .publish(run.id, { type: 'test-run-finished', status: 'cancelled', final: true })
        .catch(() => '');
      await audit(deps.db, c, 'test_run.cancelled', { type: 'agent', id: agent.id }, { test_run_id: run.id });
      // Its turns in flight stop too: nothing will read their answers.
      for (const active of await activeTestRunRuns(deps.db, run.tenantId, run.id))
        await runs.cancel(active, { bestEffort: true });
    }
    return c.json(testRunView(ended ?? run));
  });

  app.get(
    '/:id/versions/:n/test-gate',
    doc({
      operationId: 'getTestGate',
      tag: 'Agent tests',
      summary: 'Whether a version may be published under `require_passing_tests`',
      auth: 'tenant',
      path: versionParams,
      responses: { 200: { description: 'The gate', schema: ref('TestGate') } },
      errors: ['agent_not_found', 'agent_version_not_found'],
    }),
  );
  app.get('/:id/versions/:n/test-gate', async (c) => {
    const agent = await agentOf(c);
    const n = Number(c.req.param('n'));
    const version =
      Number.isInteger(n) && n >= 1 && n <= PG_INTEGER_MAX
        ? await getAgentVersion(deps.db, agent.tenantId, agent.id, n)
        : undefined;
    if (!version) throw errors.notFound('agent_version', c.req.param('n'));
    return c.json(gateView(agent, version.version, await testGate(deps.db, agent, version.version)));
  });

  return app;
}

/**
 * A model the caller names for a test run must be usable here: one whose provider has no
 * credentials is the caller's choice to fix (422 at its field), not an outage (the 503 a run's own
 * model gets).
 */
function usableModel(spec: string, models: Parameters<typeof resolveModelSpec>[1], field: string): void {
  try {
    resolveModelSpec(spec, models, field);
  } catch (error) {
    if (!isAppError(error) || error.code !== 'model_not_configured') throw error;
    throw errors.validation(`The model "${spec}" cannot be used here: ${error.message}`, [
      { path: field, code: 'model_not_configured', message: error.message },
    ]);
  }
}

function checked(input: unknown, prefix: string): AgentTestDefinition {
  const result = checkTestDefinition(input, prefix);
  if (!result.ok) throw errors.validation('The test is not valid', result.issues);
  return result.definition;
}

/** Every case checked; all issues of all cases in one answer. */
function checkedAll(inputs: unknown[], prefix: string): AgentTestDefinition[] {
  const issues: FieldIssue[] = [];
  const definitions: AgentTestDefinition[] = [];
  inputs.forEach((input, i) => {
    const result = checkTestDefinition(input, `${prefix}/${i}`);
    if (result.ok) definitions.push(result.definition);
    else issues.push(...result.issues);
  });
  if (issues.length > 0) throw errors.validation('Some tests are not valid', issues.slice(0, 100));
  return definitions;
}

/** The cases a new test run plays: those sent with it, else the stored ones (all or `test_ids`). */
async function plannedCases(
  deps: ApiDeps,
  agent: Agent,
  body: { cases?: unknown[] | undefined; test_ids?: string[] | undefined },
): Promise<PlannedTestCase[]> {
  if (body.cases) {
    return checkedAll(body.cases, '/cases').map((definition) => ({
      testId: null,
      revision: null,
      name: definition.name,
      definition,
    }));
  }
  const stored = await listAgentTests(deps.db, agent.tenantId, agent.id);
  const wanted = body.test_ids ? new Set(body.test_ids) : undefined;
  if (wanted) {
    const known = new Set(stored.map((t) => t.id));
    const missing = [...wanted].filter((id) => !known.has(id));
    if (missing.length > 0) {
      throw errors.validation('Some tests do not exist', [
        { path: '/test_ids', code: 'unknown_test', message: `No test with id ${missing.slice(0, 5).join(', ')}` },
      ]);
    }
  }
  const chosen = stored.filter((t) => !wanted || wanted.has(t.id));
  if (chosen.length === 0) {
    throw errors.validation('There is nothing to run', [
      { path: '/cases', code: 'no_tests', message: 'The agent has no tests: add some, or send `cases`' },
    ]);
  }
  return chosen.map((t) => ({ testId: t.id, revision: t.revision, name: t.name, definition: t.definition }));
}
