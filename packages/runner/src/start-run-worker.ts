import type { Db } from '@agentry/db';
import type { EgressPolicy, ToolResultCache } from '@agentry/http-tools';
import type { KnowledgeSearch } from '@agentry/knowledge';
import type { StdioServerDefinitions } from '@agentry/mcp';
import type { ModelProviderSettings } from '@agentry/models';
import {
  DEFAULT_JOB_LOCK_MS,
  type JobHandler,
  type JobWorker,
  jobRetryPolicy,
  type RunScheduler,
  startReconciler,
  type WorkerOptions,
} from '@agentry/queue';
import type { RunControl, RunEventBus } from '@agentry/run-events';
import { openSecrets } from '@agentry/run-service';
import type { SecretBox } from '@agentry/secrets';
import { type AgentryMetrics, createRunTelemetry } from '@agentry/telemetry';
import { createWebhookDispatcher, type WebhookSettings } from '@agentry/webhooks';
import { createRunProcessor, type RunProcessor } from './execute-run.ts';
import { type SweeperSettings, startSweeper } from './sweeper.ts';

/** Everything a run worker needs, read from the environment by each app's `config.ts`. */
export interface RunWorkerConfig {
  db: Db;
  /** The process's scheduler (the API shares it: runs are submitted through it). */
  scheduler: RunScheduler;
  events: RunEventBus;
  control: RunControl;
  /**
   * Starts the job worker on the process's queue: `startBullWorker` bound to its Redis, or the
   * in-process queue's `startWorker`.
   */
  startWorker: (handler: JobHandler, options: WorkerOptions) => JobWorker;
  /** Jobs this process runs at once. */
  concurrency: number;
  /**
   * The job lock (`JOB_LOCK_MS`; default the queue's {@link DEFAULT_JOB_LOCK_MS}), which is also
   * the tenant slots' lease: the reconciliation and the sweeper's ages follow it.
   */
  jobLockMs?: number;
  models: ModelProviderSettings;
  /** Opens tenant secrets (tool templates, agents' own model keys, webhook signing secrets). */
  secretBox?: SecretBox;
  mcpStdioServers?: StdioServerDefinitions;
  /** Where tools and webhooks may send requests; default: public addresses only. */
  egress?: EgressPolicy;
  /**
   * Stored responses of tools with `cache: { ttl }`: `createRedisToolResultCache` shared by the
   * workers, or `createMemoryToolResultCache` in the embedded mode without Redis; omitted = none.
   */
  toolCache?: ToolResultCache;
  /** Searches the tenants' knowledge bases for agents with `knowledge`; omitted = their searches fail as tool errors. */
  knowledge?: KnowledgeSearch;
  sweeper: SweeperSettings;
  webhooks: WebhookSettings;
  /** Run metrics and spans, webhook metrics; omitted = none. */
  metrics?: AgentryMetrics;
  log?: (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>) => void;
}

export interface RunWorker {
  processor: RunProcessor;
  /**
   * Stops taking work: the sweeper and the reconciliation first, then running loops stop at their
   * next checkpoint (their jobs go back to the queue), the job worker closes and the webhook
   * dispatcher finishes its attempts in flight, all within `deadlineMs`.
   */
  stop(deadlineMs: number): Promise<void>;
}

/**
 * The sweeper's ages, from the job lock, in ONE place for the worker app and the embedded API.
 *
 * - `staleAfterMs` = max(60 s, 2 × the job lock): a run's heartbeat beats every 10 s, and a dead
 *   worker's job moves to another worker only after its lock runs out, so a run is called abandoned
 *   (and submitted again) no sooner than twice the lock — never while its job may still be live.
 * - `giveUpAfterMs` = 30 min: an abandoned run silent that long ends as `timed_out` instead.
 * - the scheduler's reconciliation runs every half lock (the slot lease is the lock), at least 1 s apart.
 *
 * @example
 * runWorkerTimings(30_000); // { staleAfterMs: 60_000, giveUpAfterMs: 1_800_000, reconcileEveryMs: 15_000 }
 */
export function runWorkerTimings(jobLockMs: number = DEFAULT_JOB_LOCK_MS): {
  staleAfterMs: number;
  giveUpAfterMs: number;
  reconcileEveryMs: number;
} {
  return {
    staleAfterMs: Math.max(60_000, jobLockMs * 2),
    giveUpAfterMs: 30 * 60_000,
    reconcileEveryMs: Math.max(1000, jobLockMs / 2),
  };
}

/**
 * A run worker, the same for the worker app and the API's embedded mode: the run processor on the
 * process's job queue, the stuck-run sweeper, the scheduler's reconciliation of expired slots and
 * the webhook dispatcher (any worker sends the outbox rows that run status changes wrote).
 *
 * @example
 * const worker = startRunWorker({ db, scheduler, events, control, startWorker: (handler, options) =>
 *   startBullWorker(redis, handler, options), concurrency: 8, models, sweeper, webhooks });
 * await worker.stop(24_000);
 */
export function startRunWorker(config: RunWorkerConfig): RunWorker {
  const { db, scheduler, events, control, secretBox, egress, metrics } = config;
  const log = config.log ?? (() => {});
  const jobLockMs = config.jobLockMs ?? DEFAULT_JOB_LOCK_MS;
  const timings = runWorkerTimings(jobLockMs);
  const processor = createRunProcessor({
    db,
    models: config.models,
    maxAttempts: jobRetryPolicy.attempts,
    events,
    control,
    scheduler,
    ...(secretBox ? { secretBox } : {}),
    ...(config.mcpStdioServers ? { mcpStdioServers: config.mcpStdioServers } : {}),
    ...(egress ? { egress } : {}),
    ...(config.toolCache ? { toolCache: config.toolCache } : {}),
    ...(config.knowledge ? { knowledge: config.knowledge } : {}),
    log,
    ...(metrics ? { telemetry: createRunTelemetry(metrics) } : {}),
  });
  const stopSweeper = startSweeper({
    db,
    scheduler,
    events,
    intervalMs: config.sweeper.intervalMs,
    staleAfterMs: timings.staleAfterMs,
    giveUpAfterMs: timings.giveUpAfterMs,
    waitingTimeoutSeconds: config.sweeper.waitingTimeoutSeconds,
    log,
  });
  const stopReconciler = startReconciler(scheduler, {
    intervalMs: timings.reconcileEveryMs,
    onError: (error) => log('warn', 'scheduler reconciliation failed', { err: error }),
  });
  const webhooks = createWebhookDispatcher({
    db,
    openSecrets: (tenantId, names) => openSecrets(db, secretBox, tenantId, names),
    ...(egress ? { egress } : {}),
    settings: config.webhooks,
    ...(metrics ? { metrics } : {}),
    log,
  });
  webhooks.start();
  const worker = config.startWorker((job) => processor.process(job), {
    concurrency: config.concurrency,
    lockMs: jobLockMs,
  });
  return {
    processor,
    async stop(deadlineMs) {
      stopSweeper();
      stopReconciler();
      // Running loops stop at their next checkpoint and go back to the queue; another worker resumes them.
      await Promise.all([processor.shutdown(deadlineMs), worker.close(), webhooks.stop(deadlineMs)]);
      processor.close();
    },
  };
}
