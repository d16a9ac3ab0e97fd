import {
  startTestRunWorker,
  TEST_RUN_QUEUE_NAME,
  type TestRunJobData,
  testRunDependencies,
} from '@agentry/agent-tests';
import { openDatabase } from '@agentry/db';
import { EnvError } from '@agentry/env';
import { createEgressPolicy, createRedisToolResultCache, egressModelFetch } from '@agentry/http-tools';
import {
  createKnowledgeSearch,
  KNOWLEDGE_QUEUE_NAME,
  type KnowledgeJobData,
  knowledgeIngestDependencies,
  startIngestionWorker,
} from '@agentry/knowledge';
import { createBullQueue, createRedisScheduler, startBullWorker } from '@agentry/queue';
import { createRedisBus, createRedisRunControl } from '@agentry/run-events';
import { tenantEmbeddings } from '@agentry/run-service';
import { startRunWorker } from '@agentry/runner';
import { createSecretBox } from '@agentry/secrets';
import { createLogger, processMetrics, startTelemetry } from '@agentry/telemetry';
import type { Logger } from 'pino';
import { readWorkerConfig, type WorkerConfig } from './config.ts';
import { type MetricsServer, startMetricsServer } from './metrics-server.ts';

function loadConfig(): WorkerConfig {
  try {
    return readWorkerConfig(process.env);
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}

/**
 * `/metrics` and `/healthz` on METRICS_PORT. A port already taken is logged, not fatal: the worker
 * still takes jobs (and a liveness probe on the port makes the problem visible).
 */
async function serveMetrics(config: WorkerConfig, logger: Logger): Promise<MetricsServer | undefined> {
  if (config.metricsPort === 0) return undefined;
  try {
    return await startMetricsServer({
      metrics: processMetrics(),
      port: config.metricsPort,
      host: config.metricsHost,
      ...(config.metricsToken ? { token: config.metricsToken } : {}),
    });
  } catch (error) {
    logger.error({ err: error, port: config.metricsPort }, 'metrics server could not start');
    return undefined;
  }
}

/** A worker process: takes run jobs from BullMQ and executes them. Run as many as you like. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel, base: { app: 'worker', pid: process.pid } });
  const tracing = await startTelemetry({
    serviceName: 'agentry-worker',
    ...(config.otlpEndpoint ? { otlpEndpoint: config.otlpEndpoint } : {}),
  });
  const metrics = processMetrics();
  const database = await openDatabase({
    kind: 'postgres',
    url: config.databaseUrl,
    preparedStatements: config.databasePreparedStatements,
    onStartRetry: (error, attempt) => logger.warn({ err: error, attempt }, 'database unreachable at start; waiting'),
  });
  const redis = { redisUrl: config.redisUrl, prefix: config.queuePrefix };
  const events = createRedisBus(redis);
  const control = createRedisRunControl(redis);
  // A run job is removed as it completes: each dispatch has a fresh id, nothing reads a finished one.
  const queue = createBullQueue({ ...redis, keepCompleted: 0 });
  // Tenant slots and wake-ups, shared with the API and the other workers; a slot's lease lasts the
  // job lock time, so a dead worker's slot frees itself about when its job moves on.
  const scheduler = createRedisScheduler({
    ...redis,
    perTenant: config.tenantConcurrency,
    leaseMs: config.jobLockMs,
    dispatch: (jobId, data) => queue.enqueue(jobId, data),
    onError: (message, error) => logger.warn({ err: error }, `scheduler: ${message}`),
  });
  metrics.trackQueue(queue);
  const secretBox = config.secretKeys ? createSecretBox(config.secretKeys) : undefined;
  // Shared by every worker, bounded per tenant: the deployment's Redis need not set maxmemory.
  const toolCache = createRedisToolResultCache({
    ...redis,
    maxEntryBytes: config.toolCache.maxEntryBytes,
    maxEntriesPerTenant: config.toolCache.maxEntriesPerTenant,
  });
  const egress = createEgressPolicy({ allowlist: config.egressAllowlist });
  // The processor, the sweeper, the scheduler's reconciliation and the webhook dispatcher (this
  // worker also sends the outbox rows that run status changes wrote; any worker may), as in the
  // API's embedded mode.
  const embeddings = tenantEmbeddings({ db: database.db, models: config.models, secretBox, egress });
  const knowledge = createKnowledgeSearch({
    db: database.db,
    embeddingModelFor: embeddings.modelFor,
    vectorSearch: config.knowledge.vectorSearch,
  });
  const runWorker = startRunWorker({
    db: database.db,
    scheduler,
    events,
    control,
    startWorker: (handler, options) => startBullWorker(redis, handler, options),
    concurrency: config.concurrency,
    jobLockMs: config.jobLockMs,
    models: config.models,
    ...(secretBox ? { secretBox } : {}),
    ...(config.mcpStdioServers ? { mcpStdioServers: config.mcpStdioServers } : {}),
    egress,
    toolCache,
    sweeper: config.sweeper,
    webhooks: config.webhooks,
    metrics,
    knowledge,
    log: (level, message, fields) => logger[level](fields, message),
  });
  // Knowledge ingestion: its own queue and a small concurrency, so documents never starve runs.
  const knowledgeBull = { ...redis, queueName: KNOWLEDGE_QUEUE_NAME, jobName: 'ingest' };
  const knowledgeQueue = createBullQueue<KnowledgeJobData>(knowledgeBull);
  const ingestion = startIngestionWorker({
    deps: knowledgeIngestDependencies({
      db: database.db,
      egress,
      settings: config.knowledge,
      embeddingModelFor: embeddings.modelFor,
    }),
    queue: knowledgeQueue,
    startWorker: (handler, options) =>
      startBullWorker(knowledgeBull, handler, { ...options, lockMs: config.jobLockMs }),
    concurrency: config.knowledge.ingestionConcurrency,
    onError: (error) => logger.warn({ err: error }, 'knowledge sweeper failed'),
  });
  // Test runs (issue 22): their own queue; each plays its cases as real runs through the run service.
  const testsBull = { ...redis, queueName: TEST_RUN_QUEUE_NAME, jobName: 'test-run' };
  const testsQueue = createBullQueue<TestRunJobData>(testsBull);
  const testRuns = startTestRunWorker({
    deps: testRunDependencies({
      db: database.db,
      scheduler,
      control,
      events,
      models: config.models,
      secretBox,
      guardedFetch: egressModelFetch(egress),
      settings: config.tests,
    }),
    queue: testsQueue,
    startWorker: (handler, options) => startBullWorker(testsBull, handler, { ...options, lockMs: config.jobLockMs }),
    concurrency: config.tests.concurrency,
    onError: (error) => logger.warn({ err: error }, 'test run sweeper failed'),
  });
  logger.info(
    { concurrency: config.concurrency, ingestionConcurrency: config.knowledge.ingestionConcurrency },
    'worker started',
  );
  // After the start line and not awaited: the metrics server is auxiliary and never delays taking jobs.
  const metricsServer = serveMetrics(config, logger).then((server) => {
    if (server) logger.info({ port: server.port }, 'metrics server listening');
    return server;
  });

  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), config.shutdownDeadlineMs).unref();
    try {
      // Running loops stop at their next checkpoint and go back to the queue; another worker resumes them.
      await runWorker.stop(config.shutdownDeadlineMs - 1000);
      await ingestion.stop();
      await testRuns.stop();
      await Promise.all([
        queue.close(),
        knowledgeQueue.close(),
        testsQueue.close(),
        scheduler.close(),
        control.close(),
        events.close(),
        toolCache.close(),
      ]);
      await database.close();
      await Promise.all([metricsServer.then((server) => server?.close()), tracing.shutdown()]);
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

await main();
