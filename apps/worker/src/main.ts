import { openDatabase } from '@agentry/db';
import { jobRetryPolicy, startBullWorker } from '@agentry/queue';
import { createRedisBus } from '@agentry/run-events';
import { EnvError, executeRun } from '@agentry/runner';
import pino from 'pino';
import { readWorkerConfig, type WorkerConfig } from './config.ts';

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
  const events = createRedisBus({ redisUrl: config.redisUrl, prefix: config.queuePrefix });
  const worker = startBullWorker(
    { redisUrl: config.redisUrl, prefix: config.queuePrefix },
    (job) =>
      executeRun(
        {
          db: database.db,
          models: config.models,
          maxAttempts: jobRetryPolicy.attempts,
          events,
          log: (level, message, fields) => logger[level](fields, message),
        },
        job,
      ),
    { concurrency: config.concurrency },
  );
  logger.info({ concurrency: config.concurrency }, 'worker started');

  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), config.shutdownDeadlineMs).unref();
    worker
      .close()
      .then(() => events.close())
      .then(() => database.close())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

await main();
