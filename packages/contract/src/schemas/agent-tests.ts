import { z } from 'zod';
import { MAX_MESSAGE_CHARS, PG_INTEGER_MAX } from '../limits.ts';
import { component, id, list, timestamp } from './common.ts';
import { CitationSchema } from './knowledge.ts';

/**
 * Test conversations that gate publishing (issue 22): an agent's test cases (user turns, tool
 * fixtures, expectations per turn), runs of them against a version, and their results. A case is
 * the same JSON in the API, the dashboard's forms, an export file and the CLI's `--cases` file.
 */

/** Bounds of one case: a test is a conversation, not a load test. */
export const AGENT_TEST_LIMITS = {
  cases: 200,
  turns: 20,
  expectationsPerTurn: 20,
  fixtures: 50,
  repetitions: 10,
  nameChars: 200,
  textChars: 2000,
  /** A fixture's output or a JSON Schema, as JSON text. */
  jsonBytes: 32 * 1024,
} as const;

const name = z.string().trim().min(1).max(AGENT_TEST_LIMITS.nameChars);
const text = z.string().min(1).max(AGENT_TEST_LIMITS.textChars);
const toolName = z.string().min(1).max(128);

/** A JSON Schema object (checked for validity by the server, bounded in size). */
const jsonSchema = z
  .record(z.string(), z.unknown())
  .refine((value) => JSON.stringify(value).length <= AGENT_TEST_LIMITS.jsonBytes, {
    message: `at most ${AGENT_TEST_LIMITS.jsonBytes} bytes of JSON`,
  })
  .describe('A JSON Schema (draft 2020-12)');

/** What a turn's answer must show. Every kind names what it checks, so a failure can say what happened instead. */
export const ExpectationSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('tool_called'),
    tool: toolName,
    /** The call's arguments must match this schema (any call of the tool that does passes). */
    arguments: jsonSchema.optional(),
  }),
  z.strictObject({ type: z.literal('tool_not_called'), tool: toolName }),
  z.strictObject({ type: z.literal('reply_contains'), text, case_sensitive: z.boolean().optional() }),
  z.strictObject({ type: z.literal('reply_not_contains'), text, case_sensitive: z.boolean().optional() }),
  z.strictObject({
    type: z.literal('reply_matches'),
    /** An RE2 pattern (linear time: hostile patterns cannot stall the runner). */
    pattern: z.string().min(1).max(500),
    case_sensitive: z.boolean().optional(),
  }),
  z.strictObject({
    type: z.literal('rubric'),
    /** What a good reply does, in plain words; a judge model answers pass or fail with its reason. */
    rubric: text,
  }),
  z.strictObject({ type: z.literal('flow_step'), flow: name, step: name }),
  z.strictObject({ type: z.literal('handoff_requested') }),
  z.strictObject({
    type: z.literal('cited'),
    /** A document's title (case-insensitive, contained) or id. */
    document: name,
  }),
]);
export type Expectation = z.infer<typeof ExpectationSchema>;
export type ExpectationType = Expectation['type'];

/** What a tool answers during a test instead of being called. The first matching fixture wins. */
export const ToolFixtureSchema = z.strictObject({
  tool: toolName,
  /** Only calls whose arguments match this schema get this fixture. */
  when: jsonSchema.optional(),
  /** What the tool returns (an HTTP tool's response body, an MCP or client tool's result). */
  output: z.unknown().optional(),
  /** The tool fails with `output` as its error. */
  is_error: z.boolean().optional(),
  /** For a call that asks a person first (approval): the person's decision (default approve). */
  decision: z.enum(['approve', 'decline']).optional(),
});
export type ToolFixture = z.infer<typeof ToolFixtureSchema>;

export const TestTurnSchema = z.strictObject({
  user: z.string().min(1).max(MAX_MESSAGE_CHARS),
  expect: z.array(ExpectationSchema).max(AGENT_TEST_LIMITS.expectationsPerTurn).default([]),
});
export type TestTurn = z.input<typeof TestTurnSchema>;

/** One test case: a conversation to play and what each answer must show. */
export const AgentTestDefinitionSchema = z.strictObject({
  name,
  description: z.string().max(AGENT_TEST_LIMITS.textChars).optional(),
  /** The conversation's context variables (what the agent declares under `context`). */
  context: z.record(z.string(), z.unknown()).optional(),
  /** The end user the conversation is for: tools read `{{user.…}}` from these claims. */
  end_user: z
    .strictObject({ id: z.string().min(1).max(256), claims: z.record(z.string(), z.unknown()).optional() })
    .optional(),
  turns: z.array(TestTurnSchema).min(1).max(AGENT_TEST_LIMITS.turns),
  fixtures: z.array(ToolFixtureSchema).max(AGENT_TEST_LIMITS.fixtures).default([]),
});
export type AgentTestDefinition = z.output<typeof AgentTestDefinitionSchema>;
export type AgentTestDefinitionInput = z.input<typeof AgentTestDefinitionSchema>;

export const AgentTestSchema = component(
  'AgentTest',
  z.object({
    id,
    object: z.literal('agent_test'),
    agent_id: id,
    revision: z.int().describe('Goes up by one with every change; results name the revision they ran'),
    definition: z.looseObject({}).describe('The case (AgentTestDefinition)'),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);
export const AgentTestListSchema = component('AgentTestList', list(AgentTestSchema));

/** `GET /v1/agents/{id}/tests/export` and the body of `…/tests/import`. */
export const AgentTestsExportSchema = component(
  'AgentTestsExport',
  z.object({
    object: z.literal('agent_tests'),
    agent_id: id.nullable(),
    tests: z.array(z.looseObject({})).describe('AgentTestDefinition[]'),
  }),
);

export const TEST_RUN_STATUSES = ['queued', 'running', 'passed', 'failed', 'error', 'cancelled'] as const;
export type TestRunStatus = (typeof TEST_RUN_STATUSES)[number];

/** How one expectation fared, with what happened instead. */
export const ExpectationResultSchema = z.object({
  expectation: z.looseObject({ type: z.string() }),
  passed: z.boolean(),
  /** What was observed (or the judge's reason for a rubric). */
  detail: z.string(),
});
export type ExpectationResult = z.infer<typeof ExpectationResultSchema>;

export const TestToolCallSchema = z.object({
  name: z.string(),
  arguments: z.unknown(),
  output: z.unknown(),
  is_error: z.boolean(),
  /** Answered by a fixture (always, except built-in tools such as knowledge search and flows). */
  fixture: z.boolean(),
});

export const TestTurnResultSchema = z.object({
  user: z.string(),
  reply: z.string(),
  run_id: id.nullable(),
  status: z.string().describe('The run’s final status'),
  tool_calls: z.array(TestToolCallSchema),
  citations: z.array(CitationSchema),
  flow: z.object({ flow: z.string(), step: z.string().nullable(), status: z.string() }).nullable(),
  handoff: z.boolean(),
  expectations: z.array(ExpectationResultSchema),
  passed: z.boolean(),
});
export type TestTurnResult = z.infer<typeof TestTurnResultSchema>;

const usageView = z.object({ input_tokens: z.int(), output_tokens: z.int() });

export const TestAttemptSchema = z.object({
  repetition: z.int(),
  passed: z.boolean(),
  conversation_id: id.nullable(),
  turns: z.array(TestTurnResultSchema),
  /** Why the attempt could not finish (a run failed, timed out), or null. */
  error: z.string().nullable(),
  usage: usageView,
});
export type TestAttempt = z.infer<typeof TestAttemptSchema>;

export const TestCaseResultSchema = component(
  'TestCaseResult',
  z.object({
    test_id: id.nullable().describe('Null for a case sent with the run (the CLI’s `--cases`)'),
    revision: z.int().nullable(),
    name: z.string(),
    passed: z.boolean(),
    pass_rate: z.number().describe('Passing repetitions / repetitions'),
    attempts: z.array(TestAttemptSchema),
    definition: z.looseObject({}).describe('The case as it ran'),
  }),
);
export type TestCaseResult = z.infer<typeof TestCaseResultSchema>;

export const TestRunSchema = component(
  'TestRun',
  z.object({
    id,
    object: z.literal('test_run'),
    agent_id: id,
    agent_version: z.int(),
    status: z.enum(TEST_RUN_STATUSES),
    model: z.string().describe('`agent` (the version’s own), `demo`, or a `provider/model` spec'),
    judge_model: z.string().nullable(),
    repetitions: z.int(),
    threshold: z.number().describe('The share of repetitions a case must pass'),
    case_count: z.int(),
    completed_count: z.int(),
    passed_count: z.int(),
    failed_count: z.int(),
    usage: usageView,
    cost_usd: z.number().nullable().describe('From list prices of known models; null when a model’s price is unknown'),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    created_at: timestamp,
    started_at: timestamp.nullable(),
    finished_at: timestamp.nullable(),
    results: z.array(TestCaseResultSchema).optional().describe('With `GET /v1/test-runs/{id}` only'),
  }),
);
export type TestRun = z.infer<typeof TestRunSchema>;
export const TestRunListSchema = component('TestRunList', list(TestRunSchema));

/** Whether a version may be published under its agent's `require_passing_tests`. */
export const TestGateSchema = component(
  'TestGate',
  z.object({
    object: z.literal('test_gate'),
    agent_id: id,
    version: z.int(),
    required: z.boolean().describe('The agent’s `require_passing_tests`: only then does the state block publishing'),
    state: z
      .enum(['passing', 'failing', 'missing', 'running'])
      .describe('From the latest test run of the version; `missing`: none'),
    test_run: TestRunSchema.nullable().describe('The latest test run of this version'),
    failing_cases: z.array(z.string()),
  }),
);
export type TestGate = z.infer<typeof TestGateSchema>;

// ---- request bodies ------------------------------------------------------------------------

/** `POST /v1/agents/{id}/tests/import`: cases by name; `replace` removes the others. */
export const ImportAgentTestsBody = z.strictObject({
  tests: z.array(z.unknown()).max(AGENT_TEST_LIMITS.cases),
  mode: z.enum(['merge', 'replace']).optional(),
});

/** `POST /v1/agents/{id}/test-runs`. */
export const NewTestRunBody = z.strictObject({
  /** Default: the latest version (a draft or the published one). */
  version: z.int().positive().max(PG_INTEGER_MAX).optional(),
  /** `agent` (default), `demo`, or a `provider/model` the platform can use. */
  model: z.string().min(1).max(200).optional(),
  /** The model judging rubric expectations (default `JUDGE_MODEL`, else the run's model). */
  judge_model: z.string().min(1).max(200).optional(),
  repetitions: z.int().min(1).max(AGENT_TEST_LIMITS.repetitions).optional(),
  /** The share of repetitions a case must pass (default 1: all). */
  threshold: z.number().gt(0).max(1).optional(),
  /** Only these stored cases (default all). */
  test_ids: z.array(z.string()).max(AGENT_TEST_LIMITS.cases).optional(),
  /** Cases sent with the run instead of the stored ones (not stored). */
  cases: z.array(z.unknown()).min(1).max(AGENT_TEST_LIMITS.cases).optional(),
});
export type NewTestRunBody = z.input<typeof NewTestRunBody>;

/** `PATCH /v1/agents/{id}`. */
export const AgentSettingsBody = z.strictObject({
  require_passing_tests: z.boolean().optional(),
});

/** `POST /v1/agents/{id}/versions/{n}/publish` (optional body): an owner publishing past failing tests. */
export const PublishBody = z.strictObject({
  force: z.boolean().optional(),
  /** Required with `force`: recorded in the audit log. */
  reason: z.string().trim().min(1).max(1000).optional(),
});
export type PublishBody = z.input<typeof PublishBody>;
