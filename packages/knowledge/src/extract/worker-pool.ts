import { type ChildProcess, fork } from 'node:child_process';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { AppError, errors, type SerializedAppError } from '@agentry/errors';
import type { ExtractedDocument, ExtractInput } from '../types.ts';
import { aborted, unreadable } from './extract-errors.ts';
import type { ExtractBounds } from './extract-in-process.ts';

/** Extractions running at once per process; more wait their turn, up to {@link MAX_WAITING}. */
const MAX_PARALLEL = 2;
/** Extractions waiting per process; past it one is refused 503 `server_busy` (retryable) at once. */
const MAX_WAITING = 64;
/** An idle reader is ended after this long (it holds the parsers in memory). */
const IDLE_MS = 60_000;
/** A reader's heap ceiling: a hostile document fails alone instead of the process. */
export const EXTRACT_MEMORY_MB = 512;
/** How much of a reader's stderr is kept to tell why it ended (a heap-limit crash prints there). */
const STDERR_TAIL_CHARS = 4096;
/** The reader process's entry point. */
const READER = fileURLToPath(new URL('./extract-worker.ts', import.meta.url));
/** How long one extraction may take unless the caller says otherwise. */
export const EXTRACT_TIMEOUT_MS = 60_000;

type Answer =
  | { id: number; ok: true; document: ExtractedDocument }
  | { id: number; ok: false; error?: SerializedAppError; message?: string };

let running = 0;
let nextId = 0;
const waiting: Array<() => void> = [];
const idle: Array<{ reader: Reader; timer: NodeJS.Timeout }> = [];

/** A child process that reads documents, and the end of what it wrote to stderr. */
interface Reader {
  child: ChildProcess;
  stderrTail: string;
}

/**
 * Runs an extraction in a child process (a small pool, reused), so parsing a large or hostile PDF,
 * DOCX or HTML never blocks the event loop: each reader has a heap ceiling, and one that takes
 * longer than `timeoutMs` is killed (`document_unreadable`). An aborted `signal` kills it too.
 * Processes, not worker threads: ending a thread mid-parse can abort the whole process in Node's
 * native code (pdf.js decompresses with zlib streams, and tearing one down before its init
 * asserts), while a killed child takes nothing with it.
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

function spawn(): Reader {
  const child = fork(READER, [], {
    execArgv: [`--max-old-space-size=${EXTRACT_MEMORY_MB}`, '--max-semi-space-size=16'],
    serialization: 'advanced', // bytes travel as bytes, not JSON
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  const reader: Reader = { child, stderrTail: '' };
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    process.stderr.write(text);
    reader.stderrTail = (reader.stderrTail + text).slice(-STDERR_TAIL_CHARS);
  });
  // A reader that dies while idle leaves the pool; 'error' always has a listener (an unheard one throws).
  child.once('exit', () => {
    const at = idle.findIndex((r) => r.reader === reader);
    if (at < 0) return;
    clearTimeout(idle[at]!.timer);
    idle.splice(at, 1);
  });
  child.on('error', () => {});
  // An idle reader never keeps the process alive; a busy one holds its channel (see `hold`).
  child.unref();
  (child.stderr as Socket | null)?.unref();
  hold(reader, false);
  return reader;
}

/** Whether the reader's IPC channel keeps the event loop alive (only while it has a job). */
function hold(reader: Reader, busy: boolean): void {
  const channel = reader.child.channel;
  if (busy) channel?.ref();
  else channel?.unref();
}

function kill(reader: Reader): void {
  hold(reader, false);
  reader.child.kill('SIGKILL');
}

function release(reader: Reader): void {
  hold(reader, false);
  if (idle.length >= MAX_PARALLEL) {
    kill(reader);
    return;
  }
  const timer = setTimeout(() => {
    const at = idle.findIndex((r) => r.reader === reader);
    if (at >= 0) idle.splice(at, 1);
    kill(reader);
  }, IDLE_MS);
  timer.unref();
  idle.push({ reader, timer });
}

function runJob(
  input: ExtractInput,
  bounds: ExtractBounds,
  options: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<ExtractedDocument> {
  const reused = idle.pop();
  if (reused) clearTimeout(reused.timer);
  const reader = reused?.reader ?? spawn();
  const { child } = reader;
  reader.stderrTail = '';
  hold(reader, true);
  const id = nextId++;
  const { signal } = options;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (reuse: boolean, fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      child.off('message', onMessage);
      child.off('error', onError);
      child.off('close', onExit);
      if (reuse) release(reader);
      else kill(reader);
      fn();
    };
    const onMessage = (message: unknown) => {
      const answer = message as Answer;
      if (answer.id !== id) return;
      finish(true, () => {
        if (answer.ok) resolve(answer.document);
        else if (answer.error) reject(AppError.fromJSON(answer.error));
        else reject(unreadable(`The document could not be read: ${answer.message ?? 'unknown error'}`));
      });
    };
    // A reader that cannot be started or written to.
    const onError = (error: Error) =>
      finish(false, () => reject(unreadable(`The document could not be read: ${error.message.slice(0, 200)}`)));
    // 'close', not 'exit': by then stderr is read to its end (a heap-limit crash says so there).
    const onExit = (code: number | null, how: NodeJS.Signals | null) =>
      finish(false, () =>
        reject(
          /heap limit|heap out of memory/i.test(reader.stderrTail)
            ? unreadable('The document needs too much memory to read')
            : unreadable(`The document could not be read (the reader ended with ${how ?? `code ${code}`})`),
        ),
      );
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
    child.on('message', onMessage);
    child.once('error', onError);
    child.once('close', onExit);
    signal?.addEventListener('abort', onAbort, { once: true });
    child.send({ id, input, bounds }, (error) => {
      if (error) onError(error);
    });
  });
}
