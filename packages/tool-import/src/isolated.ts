import { Worker } from 'node:worker_threads';
import { AppError, errors, type SerializedAppError } from '@agentry/errors';
import type { BuildJob } from './build-tools.ts';
import { importLimits } from './limits.ts';
import type { ImportResult } from './types.ts';

/** Builds running at once per process; more wait their turn, up to {@link MAX_WAITING}. */
const MAX_PARALLEL = 2;
/** Builds waiting for a turn per process; past it an import is refused 503 `server_busy` at once. */
const MAX_WAITING = 16;
/** An idle worker is ended after this long (it holds the parser and the loader in memory). */
const IDLE_MS = 60_000;

type Answer =
  | { id: number; ok: true; result: ImportResult }
  | { id: number; ok: false; error?: SerializedAppError; message?: string };

let running = 0;
let nextId = 0;
const waiting: Array<() => void> = [];
const idle: Array<{ worker: Worker; timer: NodeJS.Timeout }> = [];

/**
 * Runs {@link buildTools} in a worker thread (a small pool, reused), so validating and dereferencing
 * a large document never blocks the process's event loop. A worker has a heap ceiling and is ended
 * when a build takes longer than `importLimits.buildTimeoutMs` (`import_document_invalid`).
 */
export async function runIsolated(job: BuildJob): Promise<ImportResult> {
  if (running >= MAX_PARALLEL) {
    if (waiting.length >= MAX_WAITING) {
      throw errors.unavailable('server_busy', 'Too many tool imports at once on this server; try again shortly', 2000);
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
  running++;
  try {
    return await inWorker(job);
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function spawn(): Worker {
  const worker = new Worker(new URL('./build-worker.ts', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: importLimits.buildMemoryMb },
  });
  worker.unref(); // an idle worker never keeps the process alive
  return worker;
}

function release(worker: Worker): void {
  if (idle.length >= MAX_PARALLEL) {
    void worker.terminate();
    return;
  }
  const timer = setTimeout(() => {
    const at = idle.findIndex((w) => w.worker === worker);
    if (at >= 0) idle.splice(at, 1);
    void worker.terminate();
  }, IDLE_MS);
  timer.unref();
  idle.push({ worker, timer });
}

function inWorker(job: BuildJob): Promise<ImportResult> {
  const reused = idle.pop();
  if (reused) clearTimeout(reused.timer);
  const worker = reused?.worker ?? spawn();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (reuse: boolean, fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      if (reuse) release(worker);
      else void worker.terminate();
      fn();
    };
    const onMessage = (answer: Answer) => {
      if (answer.id !== id) return;
      finish(true, () => {
        if (answer.ok) resolve(answer.result);
        else if (answer.error) reject(AppError.fromJSON(answer.error));
        else reject(errors.internal(`The import failed: ${answer.message ?? 'unknown error'}`));
      });
    };
    const onError = (error: Error) =>
      finish(false, () =>
        reject(
          /memory/i.test(error.message)
            ? errors.validation('The document needs too much memory to read', [], 'import_document_invalid')
            : errors.internal('The import failed', error),
        ),
      );
    const onExit = (code: number) =>
      finish(false, () => reject(errors.internal(`The import worker ended (exit code ${code}) without an answer`)));
    const timer = setTimeout(
      () =>
        finish(false, () =>
          reject(
            errors.validation(
              `The document took longer than ${importLimits.buildTimeoutMs / 1000} s to read; split it or import fewer operations`,
              [],
              'import_document_invalid',
            ),
          ),
        ),
      importLimits.buildTimeoutMs,
    );
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
    worker.postMessage({ id, job });
  });
}
