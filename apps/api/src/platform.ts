import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  startTestRunWorker,
  TEST_RUN_QUEUE_NAME,
  type TestRunJobData,
  type TestRunWorker,
  testRunDependencies,
} from '@agentry/agent-tests';
import { type Database, openDatabase } from '@agentry/db';
import {
  createEgressPolicy,
  createMemoryToolResultCache,
  createRedisToolResultCache,
  egressModelFetch,
  type ToolResultCache,
} from '@agentry/http-tools';
import {
  createKnowledgeSearch,
  type IngestionWorker,
  KNOWLEDGE_QUEUE_NAME,
  type KnowledgeJobData,
  knowledgeIngestDependencies,
  type StoreKnowledgeSearch,
  startIngestionWorker,
} from '@agentry/knowledge';
import {
  createBullQueue,
  createInProcessQueue,
  createMemoryScheduler,
  createRedisScheduler,
  type JobQueue,
  type RunScheduler,
  startBullWorker,
} from '@agentry/queue';
import {
  createMemoryBus,
  createMemoryRunControl,
  createRedisBus,
  createRedisRunControl,
  type RunControl,
  type RunEventBus,
} from '@agentry/run-events';
import { tenantEmbeddings } from '@agentry/run-service';
import { type RunWorker, startRunWorker } from '@agentry/runner';
import { createSecretBox } from '@agentry/secrets';
import { createLogger, processMetrics, startTelemetry, trackRunEvents } from '@agentry/telemetry';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createApp } from './app.ts';
import type { ApiConfig } from './config.ts';
import { createDemoContacts } from './embedded/demo-contacts.ts';
import { embeddedSecretKeys } from './embedded/secret-key.ts';
import { type ApiKeyCache, startApiKeyCache } from './http/api-key-cache.ts';
import { limiterReady } from './http/limits.ts';
import { createLiveStreams } from './http/live-stream.ts';
import { startRunFinishWatch } from './http/run-finish-watch.ts';
import { createStreamSlots } from './http/stream-slots.ts';
import { createMemoryVisitorStreams, createRedisVisitorStreams } from './http/visitor-streams.ts';
import { createSmtpMailer } from './mail/mailer.ts';

export interface RunningPlatform {
  url: string;
  database: Database;
  queue: JobQueue;
  scheduler: RunScheduler;
  events: RunEventBus;
  logger: Logger;
  /** The HTTP app (its `routes` are what `/openapi.json` must cover). */
  app: Hono;
  /** Knowledge search (its `vectorSearch()` says `pgvector` or `builtin`, for the start banner). */
  knowledgeSearch: StoreKnowledgeSearch;
  /** Absent when `API_KEY_CACHE_TTL_MS` is 0 or notifications cannot reach the process. */
  apiKeyCache?: ApiKeyCache;
  close(): Promise<void>;
}

/** How long start-up waits for the rate limiter's Redis before counting per process (seconds-scale restarts). */
const LIMITER_READY_TIMEOUT_MS = 10_000;
/**
 * Starts the API (and, in the embedded mode, the run worker in the same process) for a config.
 * Used by `main.ts` and by the end-to-end tests, so both exercise the same wiring.
 *
 * @example
 * const platform = await startPlatform(readApiConfig(process.env, true));
 */
export async function startPlatform(config: ApiConfig, options: { logger?: Logger } = {}): Promise<RunningPlatform> {
  const logger = options.logger ?? createLogger({ level: config.logLevel, base: { app: 'api', mode: config.mode } });
  const tracing = await startTelemetry({
    serviceName: 'agentry-api',
    ...(config.otlpEndpoint ? { otlpEndpoint: config.otlpEndpoint } : {}),
  });
  const metrics = processMetrics();
  const database = await openDatabase(
    config.databaseUrl
      ? {
          kind: 'postgres',
          url: config.databaseUrl,
          preparedStatements: config.databasePreparedStatements,
          onStartRetry: (error, attempt) =>
            logger.warn({ err: error, attempt }, 'database unreachable at start; waiting'),
        }
      : { kind: 'pglite', dataDir: join(config.dataDir, 'pg') },
  );
  // Listening before the first request: a change committed from here on reaches the cache. Where
  // notifications cannot reach the process (PgBouncer in transaction mode), every request asks.
  const keyCache =
    config.apiKeyCacheTtlMs > 0
      ? await startApiKeyCache(database, { ttlMs: config.apiKeyCacheTtlMs }).catch((error: unknown) => {
          logger.warn({ err: error }, 'API key cache off: auth change notifications do not reach this process');
          return undefined;
        })
      : undefined;
  const bullOptions = config.redisUrl ? { redisUrl: config.redisUrl, prefix: config.queuePrefix } : undefined;
  const inProcess = bullOptions ? undefined : createInProcessQueue();
  // A run job is removed as it completes: each dispatch has a fresh id, nothing reads a finished one.
  const queue: JobQueue = bullOptions ? createBullQueue({ ...bullOptions, keepCompleted: 0 }) : inProcess!;
  // One shared blocking reader (a small pool) serves every SSE subscriber of this process.
  const redisEvents = bullOptions ? createRedisBus(bullOptions) : undefined;
  const events: RunEventBus = redisEvents ?? createMemoryBus();
  const untrackEvents = redisEvents ? trackRunEvents(metrics, redisEvents) : () => {};
  // Streams whose bus fails wait on the database for their run's end: one LISTEN per process.
  const runFinishes = await startRunFinishWatch(database, {
    onError: (error) => logger.warn({ err: error }, 'event streams waiting on the database: read failed'),
  }).catch((error: unknown) => {
    logger.warn({ err: error }, 'run finish notifications unavailable: streams end when their bus fails');
    return undefined;
  });
  const secretKeys = config.secretKeys ?? (config.mode === 'embedded' ? embeddedSecretKeys(config.dataDir) : undefined);
  const secretBox = secretKeys ? createSecretBox(secretKeys) : undefined;
  const egress = createEgressPolicy({ allowlist: config.egressAllowlist });
  // Auto-pipelined: the per-tenant and per-key counters of a request go out in one write.
  const limiterRedis = config.redisUrl
    ? new Redis(config.redisUrl, { enableOfflineQueue: false, enableAutoPipelining: true })
    : undefined;
  limiterRedis?.on('error', () => {});
  if (limiterRedis && !(await limiterReady(limiterRedis, LIMITER_READY_TIMEOUT_MS)))
    logger.warn('rate limits: Redis unreachable at start; each process counts on its own until it answers');
  const liveStreams = createLiveStreams();
  const visitorStreams = limiterRedis
    ? createRedisVisitorStreams({
        redis: limiterRedis,
        prefix: config.queuePrefix,
        max: config.maxEventStreamsPerVisitor,
      })
    : createMemoryVisitorStreams(config.maxEventStreamsPerVisitor);
  const control: RunControl = bullOptions ? createRedisRunControl(bullOptions) : createMemoryRunControl();
  const untrackQueue = metrics.trackQueue(queue);
  // Runs are started through the scheduler (tenant caps without polling); in the server mode it
  // lives in Redis, shared with the workers, and fails fast while Redis is down (503).
  const schedulerOptions = {
    perTenant: config.tenantConcurrency,
    dispatch: (jobId: string, data: Parameters<JobQueue['enqueue']>[1]) => queue.enqueue(jobId, data),
    onError: (message: string, error: unknown) => logger.warn({ err: error }, `scheduler: ${message}`),
  };
  const scheduler: RunScheduler = bullOptions
    ? createRedisScheduler({ ...bullOptions, ...schedulerOptions, failFast: config.mode !== 'embedded' })
    : createMemoryScheduler(schedulerOptions);

  // Knowledge ingestion has its own queue (same Redis prefix), so documents never wait behind runs.
  const knowledgeBull = bullOptions
    ? { ...bullOptions, queueName: KNOWLEDGE_QUEUE_NAME, jobName: 'ingest' }
    : undefined;
  const knowledgeInProcess = knowledgeBull ? undefined : createInProcessQueue<KnowledgeJobData>();
  const knowledgeQueue: JobQueue<KnowledgeJobData> = knowledgeBull
    ? createBullQueue<KnowledgeJobData>(knowledgeBull)
    : knowledgeInProcess!;
  const embeddings = tenantEmbeddings({ db: database.db, models: config.models, secretBox, egress });
  const knowledgeSearch = createKnowledgeSearch({
    db: database.db,
    embeddingModelFor: embeddings.modelFor,
    vectorSearch: config.knowledge.vectorSearch,
  });

  // Test runs (issue 22) have their own queue too: a test run waits on real runs, never a run slot.
  const testsBull = bullOptions ? { ...bullOptions, queueName: TEST_RUN_QUEUE_NAME, jobName: 'test-run' } : undefined;
  const testsInProcess = testsBull ? undefined : createInProcessQueue<TestRunJobData>();
  const testsQueue: JobQueue<TestRunJobData> = testsBull ? createBullQueue<TestRunJobData>(testsBull) : testsInProcess!;

  // The embedded mode runs the worker app's run worker in this process (the same `startRunWorker`):
  // on the in-process queue, or on BullMQ when REDIS_URL is set; the job lock is the queue's default.
  let runWorker: RunWorker | undefined;
  let ingestion: IngestionWorker | undefined;
  let testRuns: TestRunWorker | undefined;
  let toolCache: ToolResultCache | undefined;
  if (config.mode === 'embedded') {
    const runLogger = logger.child({ component: 'worker' });
    toolCache = embeddedToolCache(config, bullOptions);
    runWorker = startRunWorker({
      db: database.db,
      scheduler,
      events,
      control,
      startWorker: (handler, options) =>
        inProcess ? inProcess.startWorker(handler, options) : startBullWorker(bullOptions!, handler, options),
      concurrency: config.workerConcurrency,
      models: config.models,
      ...(secretBox ? { secretBox } : {}),
      ...(config.mcpStdioServers ? { mcpStdioServers: config.mcpStdioServers } : {}),
      egress,
      toolCache,
      sweeper: config.sweeper,
      webhooks: config.webhooks,
      metrics,
      knowledge: knowledgeSearch,
      log: (level, message, fields) => runLogger[level](fields, message),
    });
    ingestion = startIngestionWorker({
      deps: knowledgeIngestDependencies({
        db: database.db,
        egress,
        settings: config.knowledge,
        embeddingModelFor: embeddings.modelFor,
      }),
      queue: knowledgeQueue,
      startWorker: (handler, options) =>
        knowledgeInProcess
          ? knowledgeInProcess.startWorker(handler, options)
          : startBullWorker(knowledgeBull!, handler, options),
      concurrency: config.knowledge.ingestionConcurrency,
      onError: (error) => runLogger.warn({ err: error }, 'knowledge sweeper failed'),
    });
    testRuns = startTestRunWorker({
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
      startWorker: (handler, options) =>
        testsInProcess ? testsInProcess.startWorker(handler, options) : startBullWorker(testsBull!, handler, options),
      concurrency: config.tests.concurrency,
      onError: (error) => runLogger.warn({ err: error }, 'test run sweeper failed'),
    });
  }

  const smtp = config.mail.smtp;
  const mailer = smtp ? createSmtpMailer(smtp) : undefined;
  const app = createApp(
    {
      db: database.db,
      pingDatabase: database.ping,
      ...(keyCache ? { apiKeyCache: keyCache.cache } : {}),
      queue,
      scheduler,
      events,
      control,
      models: config.models,
      ...(config.mode === 'embedded' ? { demoContacts: createDemoContacts() } : {}),
      ...(secretBox ? { secretBox } : {}),
      ...(config.mcpStdioServers ? { mcpStdioServers: config.mcpStdioServers } : {}),
      egress,
      rateLimit: {
        perMinute: config.rateLimitPerMinute,
        perEndUserPerMinute: config.rateLimitPerEndUserPerMinute,
        trustedProxies: config.trustedProxies,
        prefix: config.queuePrefix,
        ...(limiterRedis ? { redis: limiterRedis } : {}),
      },
      ...(config.platformAdminToken ? { platformAdminToken: config.platformAdminToken } : {}),
      runWaitMs: config.runWaitMs,
      idempotencyLeaseMs: config.idempotencyLeaseMs,
      streams: createStreamSlots(config.maxEventStreams),
      visitorStreams,
      liveStreams,
      ...(runFinishes ? { runFinishes } : {}),
      logger,
      admission: config.admission,
      ...(mailer && smtp ? { mail: { mailer, publicUrl: smtp.publicUrl } } : {}),
      showInvitationLinks: config.mail.showInvitationLinks,
      knowledge: {
        search: knowledgeSearch,
        queue: knowledgeQueue,
        settings: config.knowledge,
        embeddingFor: embeddings.choose,
      },
      agentTests: { queue: testsQueue, maxActivePerTenant: config.tests.maxActivePerTenant },
    },
    { metrics, ...(config.metricsToken ? { metricsToken: config.metricsToken } : {}) },
  );
  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;

  return {
    url,
    database,
    queue,
    scheduler,
    events,
    logger,
    app,
    knowledgeSearch,
    ...(keyCache ? { apiKeyCache: keyCache.cache } : {}),
    async close() {
      // Live streams never end by themselves: end them, or the server would wait for them forever.
      liveStreams.closeAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runWorker?.stop(5000);
      await ingestion?.stop();
      await testRuns?.stop();
      await knowledgeQueue.close();
      await testsQueue.close();
      await toolCache?.close();
      await scheduler.close();
      await control.close();
      visitorStreams.close();
      limiterRedis?.disconnect();
      mailer?.close();
      await queue.close();
      await events.close();
      await runFinishes?.close();
      await keyCache?.stop();
      await database.close();
      untrackQueue();
      untrackEvents();
      await tracing.shutdown();
    },
  };
}

/**
 * The embedded worker's tool result cache: in Redis (shared with any other process) when REDIS_URL
 * is set, else an LRU in this process; both bounded by the TOOL_CACHE_* settings.
 */
function embeddedToolCache(
  config: ApiConfig,
  redis: { redisUrl: string; prefix: string } | undefined,
): ToolResultCache {
  const bounds = {
    maxEntryBytes: config.toolCache.maxEntryBytes,
    maxEntriesPerTenant: config.toolCache.maxEntriesPerTenant,
  };
  return redis
    ? createRedisToolResultCache({ ...redis, ...bounds })
    : createMemoryToolResultCache({ ...bounds, maxBytes: config.toolCache.memoryMaxBytes });
}
