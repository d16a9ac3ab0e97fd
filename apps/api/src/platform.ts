import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Database, openDatabase } from '@agentry/db';
import {
  createBullQueue,
  createInProcessQueue,
  type JobQueue,
  type JobWorker,
  jobRetryPolicy,
  startBullWorker,
} from '@agentry/queue';
import { createMemoryBus, createRedisBus, type RunEventBus } from '@agentry/run-events';
import { executeRun } from '@agentry/runner';
import { serve } from '@hono/node-server';
import pino, { type Logger } from 'pino';
import { createApp } from './app.ts';
import type { ApiConfig } from './config.ts';

export interface RunningPlatform {
  url: string;
  database: Database;
  queue: JobQueue;
  events: RunEventBus;
  logger: Logger;
  close(): Promise<void>;
}

/**
 * Starts the API (and, in the embedded mode, the run worker in the same process) for a config.
 * Used by `main.ts` and by the end-to-end tests, so both exercise the same wiring.
 *
 * @example
 * const platform = await startPlatform(readApiConfig(process.env, true));
 */
export async function startPlatform(config: ApiConfig, options: { logger?: Logger } = {}): Promise<RunningPlatform> {
  const logger = options.logger ?? pino({ level: config.logLevel, base: { app: 'api', mode: config.mode } });
  const database = await openDatabase(
    config.databaseUrl
      ? { kind: 'postgres', url: config.databaseUrl }
      : { kind: 'pglite', dataDir: join(config.dataDir, 'pg') },
  );
  const bullOptions = config.redisUrl ? { redisUrl: config.redisUrl, prefix: config.queuePrefix } : undefined;
  const inProcess = bullOptions ? undefined : createInProcessQueue();
  const queue: JobQueue = bullOptions ? createBullQueue(bullOptions) : inProcess!;
  const events: RunEventBus = bullOptions ? createRedisBus(bullOptions) : createMemoryBus();

  let worker: JobWorker | undefined;
  if (config.mode === 'embedded') {
    const runLogger = logger.child({ component: 'worker' });
    const handler = (job: Parameters<typeof executeRun>[1]) =>
      executeRun(
        {
          db: database.db,
          models: config.models,
          maxAttempts: jobRetryPolicy.attempts,
          events,
          log: (level, message, fields) => runLogger[level](fields, message),
        },
        job,
      );
    worker = inProcess
      ? inProcess.startWorker(handler, { concurrency: config.workerConcurrency })
      : startBullWorker(bullOptions!, handler, { concurrency: config.workerConcurrency });
  }

  const app = createApp({
    db: database.db,
    pingDatabase: database.ping,
    queue,
    events,
    models: config.models,
    ...(config.platformAdminToken ? { platformAdminToken: config.platformAdminToken } : {}),
    runWaitMs: config.runWaitMs,
    logger,
  });
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
    events,
    logger,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await worker?.close();
      await queue.close();
      await events.close();
      await database.close();
    },
  };
}
