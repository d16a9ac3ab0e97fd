import {
  type Env,
  EnvError,
  envEnum,
  envInt,
  envString,
  envUrl,
  LOG_LEVELS,
  type ModelProviderSettings,
  modelSettingsFromEnv,
} from '@agentry/runner';

export interface WorkerConfig {
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  concurrency: number;
  /** Runs of one tenant executing at once across all workers. */
  tenantConcurrency: number;
  models: ModelProviderSettings;
  logLevel: (typeof LOG_LEVELS)[number];
  shutdownDeadlineMs: number;
  /** BullMQ job lock; a dead worker's job moves to another after about this long. */
  jobLockMs: number;
}

/** The only place the worker reads `process.env`; throws `EnvError` naming the variable. */
export function readWorkerConfig(env: Env): WorkerConfig {
  const databaseUrl = envUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = envUrl(env, 'REDIS_URL', ['redis:', 'rediss:']);
  if (!databaseUrl) throw new EnvError('DATABASE_URL', 'the worker needs a Postgres URL');
  if (!redisUrl) throw new EnvError('REDIS_URL', 'the worker needs a Redis URL');
  return {
    databaseUrl,
    redisUrl,
    queuePrefix: envString(env, 'QUEUE_PREFIX') ?? 'agentry',
    concurrency: envInt(env, 'WORKER_CONCURRENCY', 8, [1, 1000]),
    tenantConcurrency: envInt(env, 'TENANT_CONCURRENCY', 4, [1, 10_000]),
    models: modelSettingsFromEnv(env),
    logLevel: envEnum(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    shutdownDeadlineMs: envInt(env, 'SHUTDOWN_DEADLINE_MS', 25_000, [1000, 600_000]),
    jobLockMs: envInt(env, 'JOB_LOCK_MS', 30_000, [1000, 600_000]),
  };
}
