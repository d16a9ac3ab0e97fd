import { type Env, EnvError, envInt, envString } from '@agentry/env';
import { DEFAULT_TEST_RUN_CONCURRENCY } from './test-run-job.ts';

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
