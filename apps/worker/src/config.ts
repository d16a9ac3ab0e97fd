import { type TestRunSettings, testRunSettingsFromEnv } from '@agentry/agent-tests';
import {
  type Env,
  EnvError,
  egressAllowlistFromEnv,
  envBoolean,
  envEnum,
  envInt,
  envString,
  envUrl,
  LOG_LEVELS,
  mcpStdioServersFromEnv,
  observabilityFromEnv,
  type StdioServerDefinitions,
  secretKeysFromEnv,
} from '@agentry/env';
import { type KnowledgeSettings, knowledgeSettingsFromEnv } from '@agentry/knowledge';
import { type ModelProviderSettings, modelSettingsFromEnv } from '@agentry/models';
import {
  type SweeperSettings,
  sweeperSettingsFromEnv,
  type ToolCacheSettings,
  toolCacheSettingsFromEnv,
} from '@agentry/runner';
import { type WebhookSettings, webhookSettingsFromEnv } from '@agentry/webhooks';

export interface WorkerConfig {
  databaseUrl: string;
  /** DATABASE_PREPARED_STATEMENTS (default true): false behind PgBouncer in transaction mode before 1.21. */
  databasePreparedStatements: boolean;
  redisUrl: string;
  queuePrefix: string;
  concurrency: number;
  /** Runs of one tenant executing at once across all workers. */
  tenantConcurrency: number;
  models: ModelProviderSettings;
  secretKeys?: { keys: Record<string, Buffer>; currentKeyId: string };
  egressAllowlist: string[];
  logLevel: (typeof LOG_LEVELS)[number];
  shutdownDeadlineMs: number;
  /** BullMQ job lock; a dead worker's job moves to another after about this long. */
  jobLockMs: number;
  /** Port of the `/metrics` + `/healthz` server; 0 = no server. */
  metricsPort: number;
  /** Interface the metrics server binds (`HOST`, as for the API). */
  metricsHost: string;
  /** When set, `GET /metrics` requires `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /** OTLP/HTTP endpoint for traces; unset = no OpenTelemetry SDK. */
  otlpEndpoint?: string;
  /** MCP_STDIO_SERVERS: the operator's stdio MCP servers tenant configs may name; unset = stdio refused. */
  mcpStdioServers?: StdioServerDefinitions;
  /** WEBHOOK_*: how the webhook dispatcher sends and retries. */
  webhooks: WebhookSettings;
  /** SWEEP_INTERVAL_MS, WAITING_RUN_TTL_SECONDS: the stuck-run sweeper (waiting runs expire). */
  sweeper: SweeperSettings;
  /** KNOWLEDGE_*: knowledge bases' limits, ingestion concurrency and vector search. */
  knowledge: KnowledgeSettings;
  /** JUDGE_MODEL, TEST_RUNS_PER_TENANT, TEST_RUN_CONCURRENCY, TEST_TURN_TIMEOUT_MS: test runs (issue 22). */
  tests: TestRunSettings;
  /** TOOL_CACHE_MAX_ENTRY_BYTES, TOOL_CACHE_MAX_ENTRIES_PER_TENANT: the Redis cache of tools with `cache`. */
  toolCache: ToolCacheSettings;
}

/** The only place the worker reads `process.env`; throws `EnvError` naming the variable. */
export function readWorkerConfig(env: Env): WorkerConfig {
  const databaseUrl = envUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = envUrl(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const secretKeys = secretKeysFromEnv(env);
  if (!databaseUrl) throw new EnvError('DATABASE_URL', 'the worker needs a Postgres URL');
  if (!redisUrl) throw new EnvError('REDIS_URL', 'the worker needs a Redis URL');
  const mcpStdioServers = mcpStdioServersFromEnv(env);
  return {
    databaseUrl,
    databasePreparedStatements: envBoolean(env, 'DATABASE_PREPARED_STATEMENTS', true),
    redisUrl,
    queuePrefix: envString(env, 'QUEUE_PREFIX') ?? 'agentry',
    concurrency: envInt(env, 'WORKER_CONCURRENCY', 8, [1, 1000]),
    tenantConcurrency: envInt(env, 'TENANT_CONCURRENCY', 4, [1, 10_000]),
    models: modelSettingsFromEnv(env),
    ...(secretKeys ? { secretKeys } : {}),
    egressAllowlist: egressAllowlistFromEnv(env),
    logLevel: envEnum(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    shutdownDeadlineMs: envInt(env, 'SHUTDOWN_DEADLINE_MS', 25_000, [1000, 600_000]),
    jobLockMs: envInt(env, 'JOB_LOCK_MS', 30_000, [1000, 600_000]),
    metricsPort: envInt(env, 'METRICS_PORT', 9464, [0, 65535]),
    metricsHost: envString(env, 'HOST') ?? '127.0.0.1',
    ...observabilityFromEnv(env),
    ...(mcpStdioServers ? { mcpStdioServers } : {}),
    webhooks: webhookSettingsFromEnv(env),
    sweeper: sweeperSettingsFromEnv(env),
    knowledge: knowledgeSettingsFromEnv(env),
    tests: testRunSettingsFromEnv(env),
    toolCache: toolCacheSettingsFromEnv(env),
  };
}
