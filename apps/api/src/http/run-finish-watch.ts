import { type Database, finishedRuns, listenForFinishedRuns, type Run } from '@agentry/db';

/**
 * The process's event streams that wait on the database for their run to end (their bus is
 * unreachable, see run-stream.ts). Costs nothing per stream while nothing happens: streams are
 * woken by the run's `agentry_run_finished` notification; entering the watch and each notification
 * cost one batched read (for every stream due at that moment), and one batched read of every
 * watched run every `reconcileMs` covers a lost notification, only while some stream waits.
 */
export interface RunFinishWatch {
  /** The run once it has a final status; undefined if `signal` aborts first. */
  wait(runId: string, signal: AbortSignal): Promise<Run | undefined>;
  /** A run finished (a notification): its streams' runs are read again. */
  notified(runId: string): void;
  /** Notifications may have been missed: every watched run is read again. */
  recheckAll(): void;
  /** Streams waiting. */
  readonly waiting: number;
  close(): Promise<void>;
}

export interface RunFinishWatchOptions {
  /** Of these runs, the finished ones (`finishedRuns`: one statement). */
  read(runIds: string[]): Promise<Run[]>;
  /** Every watched run is read this often while some stream waits, for a lost notification (30 s). */
  reconcileMs?: number;
  onError?(error: unknown): void;
}

type Waiter = (run: Run) => void;

/**
 * Creates the watch; {@link startRunFinishWatch} also feeds it the database's notifications.
 *
 * @example
 * const watch = createRunFinishWatch({ read: (ids) => finishedRuns(db, ids) });
 * const run = await watch.wait(runId, signal); // the finished run, or undefined on abort
 */
export function createRunFinishWatch(options: RunFinishWatchOptions): RunFinishWatch {
  const { read, reconcileMs = 30_000, onError = () => {} } = options;
  const waiters = new Map<string, Set<Waiter>>();
  const due = new Set<string>();
  let scheduled = false;
  let reconcile: NodeJS.Timeout | undefined;
  let count = 0;

  const flush = async () => {
    scheduled = false;
    const ids = [...due].filter((id) => waiters.has(id));
    due.clear();
    if (ids.length === 0) return;
    try {
      for (const run of await read(ids)) {
        const found = waiters.get(run.id);
        waiters.delete(run.id);
        for (const wake of found ?? []) wake(run);
      }
    } catch (error) {
      // Left waiting: the next notification or reconciliation reads them again.
      onError(error);
    }
  };

  /** Reads these runs soon, together with every other run due in the same turn of the event loop. */
  const check = (ids: Iterable<string>) => {
    for (const id of ids) due.add(id);
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void flush());
  };

  const updateTimer = () => {
    if (count > 0 && !reconcile) {
      reconcile = setInterval(() => check(waiters.keys()), reconcileMs);
      reconcile.unref();
    } else if (count === 0 && reconcile) {
      clearInterval(reconcile);
      reconcile = undefined;
    }
  };

  return {
    wait(runId, signal) {
      if (signal.aborted) return Promise.resolve(undefined);
      return new Promise<Run | undefined>((resolve) => {
        const set = waiters.get(runId) ?? new Set<Waiter>();
        waiters.set(runId, set);
        const done = (run: Run | undefined) => {
          signal.removeEventListener('abort', onAbort);
          const current = waiters.get(runId);
          current?.delete(done);
          if (current?.size === 0) waiters.delete(runId);
          count--;
          updateTimer();
          resolve(run);
        };
        const onAbort = () => done(undefined);
        set.add(done);
        count++;
        signal.addEventListener('abort', onAbort, { once: true });
        updateTimer();
        // The run may have ended before the stream started waiting: read it once now.
        check([runId]);
      });
    },
    notified(runId) {
      if (waiters.has(runId)) check([runId]);
    },
    recheckAll() {
      check(waiters.keys());
    },
    get waiting() {
      return count;
    },
    async close() {
      clearInterval(reconcile);
      reconcile = undefined;
    },
  };
}

/**
 * The watch, woken by the database's notifications (one LISTEN connection per process, whatever
 * the number of streams); resumed listening reads every watched run again.
 *
 * @example
 * const watch = await startRunFinishWatch(database, { onError: (e) => log.warn(e) });
 * await watch.close();
 */
export async function startRunFinishWatch(
  database: Database,
  options: Omit<RunFinishWatchOptions, 'read'> = {},
): Promise<RunFinishWatch> {
  const watch = createRunFinishWatch({ ...options, read: (ids) => finishedRuns(database.db, ids) });
  const stop = await listenForFinishedRuns(database, {
    notify: (runId) => watch.notified(runId),
    resumed: () => watch.recheckAll(),
  });
  return {
    ...watch,
    get waiting() {
      return watch.waiting;
    },
    async close() {
      await watch.close();
      await stop();
    },
  };
}
