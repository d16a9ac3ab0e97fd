import { openDatabase } from '@agentry/db';
import { createBullQueue, createRedisTenantSlots, jobRetryPolicy, startBullWorker } from '@agentry/queue';
import { createRedisBus, createRedisRunControl } from '@agentry/run-events';
import { createRunProcessor, EnvError, startSweeper } from '@agentry/runner';
import pino from 'pino';
import { readWorkerConfig, type WorkerConfig } from './config.ts';

const SWEEP_INTERVAL_MS = 30_000;
const STALE_AFTER_MS = 60_000;
const GIVE_UP_AFTER_MS = 30 * 60_000;

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

/** A worker process: takes run jobs from BullMQ and executes them. Run as many as you like. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel, base: { app: 'worker', pid: process.pid } });
  const database = await openDatabase({ kind: 'postgres', url: config.databaseUrl });
  const redis = { redisUrl: config.redisUrl, prefix: config.queuePrefix };
  const events = createRedisBus(redis);
  const control = createRedisRunControl(redis);
  const slots = createRedisTenantSlots({ ...redis, perTenant: config.tenantConcurrency });
  const queue = createBullQueue(redis);
  const processor = createRunProcessor({
    db: database.db,
    models: config.models,
    maxAttempts: jobRetryPolicy.attempts,
    events,
    control,
    slots,
    enqueue: (runId, tenantId) => queue.enqueue(runId, { runId, tenantId }),
    log: (level, message, fields) => logger[level](fields, message),
  });
  const worker = startBullWorker(redis, (job) => processor.process(job), {
    concurrency: config.concurrency,
    lockMs: config.jobLockMs,
  });
  const stopSweeper = startSweeper({
    db: database.db,
    enqueue: (runId, tenantId) => queue.enqueue(runId, { runId, tenantId }),
    events,
    intervalMs: SWEEP_INTERVAL_MS,
    staleAfterMs: Math.max(STALE_AFTER_MS, config.jobLockMs * 2),
    giveUpAfterMs: GIVE_UP_AFTER_MS,
    log: (level, message, fields) => logger[level](fields, message),
  });
  logger.info({ concurrency: config.concurrency }, 'worker started');

  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), config.shutdownDeadlineMs).unref();
    stopSweeper();
    try {
      // Running loops stop at their next checkpoint and go back to the queue; another worker resumes them.
      await Promise.all([processor.shutdown(config.shutdownDeadlineMs - 1000), worker.close()]);
      processor.close();
      await Promise.all([queue.close(), slots.close(), control.close(), events.close()]);
      await database.close();
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
