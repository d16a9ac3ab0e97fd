/**
 * Test conversations that gate publishing (issue 22): cases checked and stored as JSON, played as
 * real runs of test conversations (tools answered from fixtures, nothing sent), expectations
 * checked per turn (a model judges rubrics), test runs as background jobs with a sweeper.
 */
export { checkTestDefinition } from './definition.ts';
export { checkExpectations, checkOne } from './expectations.ts';
export { fixtureFor, NO_FIXTURE, withToolFixtures } from './fixtures.ts';
export { createJudge, type Judge, type Verdict } from './judge.ts';
export { observeTurn, type TurnObservation } from './observe.ts';
export { type CaseDependencies, type PlayedAttempt, playCase, TestRunStopped } from './run-test-case.ts';
export { type GateState, testGate } from './test-gate.ts';
export {
  DEFAULT_CASE_CONCURRENCY,
  DEFAULT_TEST_RUN_CONCURRENCY,
  executeTestRun,
  startTestRunWorker,
  TEST_RUN_QUEUE_NAME,
  type TestRunDependencies,
  type TestRunEvent,
  type TestRunJobData,
  type TestRunWorker,
  type TestRunWorkerOptions,
} from './test-run-job.ts';
export { type TestRunSettings, testRunDependencies, testRunSettingsFromEnv } from './test-run-settings.ts';
