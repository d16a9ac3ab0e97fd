import pino, { type Logger } from 'pino';

export interface LoggerOptions {
  /** pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. */
  level: string;
  /** Fields on every line (app, pid, mode…). */
  base: Record<string, unknown>;
}

/**
 * The process's JSON logger (pino) writing to stdout off the main thread: a line is written at once
 * when no write is in flight, and lines logged meanwhile leave together in the next write. A
 * synchronous write per line (pino's default) cost the API ≈ 3 % of its CPU under load: one
 * `write(2)` per request on the event loop. What is still buffered when the process exits —
 * `process.exit`, a signal handler's exit, an uncaught exception — is flushed synchronously by pino's
 * exit hook; only a `kill -9` can lose the lines of the write in flight.
 *
 * @example
 * const logger = createLogger({ level: 'info', base: { app: 'worker', pid: process.pid } });
 * logger.info({ runId }, 'run finished');
 */
export function createLogger(options: LoggerOptions): Logger {
  return pino({ level: options.level, base: options.base }, pino.destination({ dest: 1, sync: false }));
}
