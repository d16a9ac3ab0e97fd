import { Worker } from 'node:worker_threads';
import { AppError, errors, type SerializedAppError } from '@agentry/errors';
import type { ExtractedDocument, ExtractInput } from '../types.ts';
import { aborted, unreadable } from './extract-errors.ts';
import type { ExtractBounds } from './extract-in-process.ts';

/** Extractions running at once per process; more wait their turn, up to {@link MAX_WAITING}. */
const MAX_PARALLEL = 2;
/** Extractions waiting per process; past it one is refused 503 `server_busy` (retryable) at once. */
const MAX_WAITING = 64;
/** An idle worker is ended after this long (it holds the parsers in memory). */
const IDLE_MS = 60_000;
/** A worker's heap ceiling: a hostile document fails alone instead of the process. */
export const EXTRACT_MEMORY_MB = 512;
/** How long one extraction may take unless the caller says otherwise. */
export const EXTRACT_TIMEOUT_MS = 60_000;

type Answer =
  | { id: number; ok: true; document: ExtractedDocument }
  | { id: number; ok: false; error?: SerializedAppError; message?: string };

let running = 0;
let nextId = 0;
const waiting: Array<() => void> = [];
const idle: Array<{ worker: Worker; timer: NodeJS.Timeout }> = [];

/**
 * Runs an extraction in a worker thread (a small pool, reused), so parsing a large or hostile PDF,
 * DOCX or HTML never blocks the event loop: each worker has a heap ceiling, and one that takes
 * longer than `timeoutMs` is ended (`document_unreadable`). An aborted `signal` ends it too.
 */
export async function extractInWorker(
  input: ExtractInput,
  bounds: ExtractBounds,
  options: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<ExtractedDocument> {
  const { signal } = options;
  if (signal?.aborted) throw aborted();
  if (running >= MAX_PARALLEL) {
    if (waiting.length >= MAX_WAITING) {
      throw errors.unavailable(
        'server_busy',
        'Too many documents are being read on this server; try again shortly',
        2000,
      );
    }
    await waitTurn(signal);
  }
  running++;
  try {
    return await runJob(input, bounds, options);
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function waitTurn(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const turn = () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = () => {
      const at = waiting.indexOf(turn);
      if (at >= 0) waiting.splice(at, 1);
      reject(aborted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    waiting.push(turn);
  });
}

function spawn(): Worker {
  const worker = new Worker(new URL('./extract-worker.ts', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: EXTRACT_MEMORY_MB, maxYoungGenerationSizeMb: 64 },
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

function runJob(
  input: ExtractInput,
  bounds: ExtractBounds,
  options: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<ExtractedDocument> {
  const reused = idle.pop();
  if (reused) clearTimeout(reused.timer);
  const worker = reused?.worker ?? spawn();
  const id = nextId++;
  const { signal } = options;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (reuse: boolean, fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
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
        if (answer.ok) resolve(answer.document);
        else if (answer.error) reject(AppError.fromJSON(answer.error));
        else reject(unreadable(`The document could not be read: ${answer.message ?? 'unknown error'}`));
      });
    };
    const onError = (error: Error) =>
      finish(false, () =>
        reject(
          /memory/i.test(error.message) || (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? unreadable('The document needs too much memory to read')
            : unreadable(`The document could not be read: ${error.message.slice(0, 200)}`),
        ),
      );
    const onExit = (code: number) =>
      finish(false, () => reject(unreadable(`The document could not be read (the reader ended with code ${code})`)));
    const onAbort = () => finish(false, () => reject(aborted()));
    const timer = setTimeout(
      () =>
        finish(false, () =>
          reject(
            unreadable(`The document took too long to read (more than ${Math.round(options.timeoutMs / 1000)} s)`),
          ),
        ),
      options.timeoutMs,
    );
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
    signal?.addEventListener('abort', onAbort, { once: true });
    // A copy, transferred: the caller's bytes stay usable.
    const bytes = input.bytes.slice();
    worker.postMessage({ id, input: { ...input, bytes }, bounds }, [bytes.buffer]);
  });
}
