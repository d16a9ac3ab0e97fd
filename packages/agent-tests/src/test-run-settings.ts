import { type Env, EnvError, envInt, envString } from '@agentry/env';
import type { RunEventBus } from '@agentry/run-events';
import { createRunService, type RunServiceDeps } from '@agentry/run-service';
import { DEFAULT_TEST_RUN_CONCURRENCY, type TestRunDependencies } from './test-run-job.ts';

/** The operator's settings of test runs (issue 22), read by each app's `config.ts`. */
export interface TestRunSettings {
  /** `JUDGE_MODEL`: the default rubric judge (`demo` or `<provider>/<model>`); unset: the run's model. */
  judgeModel?: string;
  /** `TEST_RUNS_PER_TENANT`: test runs in progress at once per tenant (default 3). */
  maxActivePerTenant: number;
  /** `TEST_RUN_CONCURRENCY`: test runs a worker process plays at once (default 2). */
  concurrency: number;
  /** `TEST_TURN_TIMEOUT_MS`: how long one turn of a test may take (default 120 s). */
  turnTimeoutMs: number;
}

/**
 * @example
 * testRunSettingsFromEnv({ JUDGE_MODEL: 'openai/gpt-5.4-mini' });
 */
export function testRunSettingsFromEnv(env: Env): TestRunSettings {
  const judgeModel = envString(env, 'JUDGE_MODEL');
  if (judgeModel !== undefined && judgeModel !== 'demo' && !/^[a-z_]+\/\S+$/.test(judgeModel)) {
    throw new EnvError('JUDGE_MODEL', 'must be demo or "<provider>/<model>", e.g. openai/gpt-5.4-mini');
  }
  return {
    ...(judgeModel ? { judgeModel } : {}),
    maxActivePerTenant: envInt(env, 'TEST_RUNS_PER_TENANT', 3, [1, 100]),
    concurrency: envInt(env, 'TEST_RUN_CONCURRENCY', DEFAULT_TEST_RUN_CONCURRENCY, [1, 32]),
    turnTimeoutMs: envInt(env, 'TEST_TURN_TIMEOUT_MS', 120_000, [1000, 3_600_000]),
  };
}

/**
 * What a test-run worker needs, from a process's parts: its own run service over the same
 * database, scheduler and bus (the cases' turns start as any message's run does) and the settings.
 *
 * @example
 * const deps = testRunDependencies({ db, scheduler, control, events, models, secretBox, guardedFetch, settings: config.tests });
 */
export function testRunDependencies(input: {
  db: RunServiceDeps['db'];
  scheduler: RunServiceDeps['scheduler'];
  control: RunServiceDeps['control'];
  events: RunEventBus;
  models: RunServiceDeps['models'];
  secretBox?: RunServiceDeps['secretBox'];
  guardedFetch?: typeof fetch;
  settings: TestRunSettings;
}): TestRunDependencies {
  const { db, scheduler, control, events, models, secretBox, guardedFetch, settings } = input;
  return {
    db,
    runs: createRunService({ db, scheduler, control, models, secretBox, events }),
    scheduler,
    events,
    models,
    secretBox,
    guardedFetch,
    judgeModel: settings.judgeModel,
    turnTimeoutMs: settings.turnTimeoutMs,
  };
}
