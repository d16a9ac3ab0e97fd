import type { ReservedSql, Sql } from 'postgres';

type Unsafe = Sql['unsafe'];
type Work = (tx: Sql) => unknown;

/**
 * The property of a pipelined transaction client that controls its COMMIT sent ahead (see
 * `transactionClient`); `CommitAhead` in tenant-scope.ts is the way to reach it.
 */
export const COMMIT_AHEAD: unique symbol = Symbol('commit ahead');

/** What `COMMIT_AHEAD` gives: `request` the COMMIT ahead; `cancel` it while it has not left (the work failed). */
export interface CommitAheadControl {
  request(): void;
  cancel(): void;
}

/** A transaction's COMMIT when it is sent ahead of the work's end. */
interface CommitAhead {
  /** Set while the COMMIT waits for the statements the work is still issuing (promise callbacks). */
  pending?: boolean;
  /** The COMMIT, once handed to the driver; nothing may follow it. */
  sent?: PromiseLike<{ command: string }>;
}

/**
 * The postgres-js client as drizzle gets it, tuned for round trips (each costs a socket write and
 * a wake-up of the Postgres backend):
 *
 * - **Named (prepared) statements.** drizzle runs every query as `unsafe(text, params, { prepare:
 *   false })`, and postgres-js sends such a statement unnamed: Parse + Describe, a wait for the
 *   parameter types, then Bind + Execute — two round trips, nothing pipelined behind it, and
 *   Postgres parses and plans it each time. A named statement is described once per connection;
 *   afterwards it is one Bind + Execute that travels with the statements issued next to it. The
 *   statement texts are the repositories' query shapes, so the per-connection cache stays bounded.
 * - **Transactions whose BEGIN travels with their first statements.** postgres-js waits for
 *   BEGIN's reply before running the transaction's work; here the transaction runs on a reserved
 *   connection and BEGIN is only handed over first, so it shares a write with what follows.
 * - **COMMIT sent ahead, on request** (`COMMIT_AHEAD`): behind the last statements, without
 *   waiting for their results, so a transaction that needs nothing it reads to decide what to
 *   write takes one round trip. A failing statement aborts the transaction and Postgres answers
 *   that COMMIT with ROLLBACK; checks must therefore be made by the database (`agentry_assert`).
 *
 * `preparedStatements: false` keeps statements unnamed, for poolers that cannot carry them across
 * transactions (PgBouncer in transaction mode before 1.21).
 *
 * @example
 * const db = drizzle(pipelinedPostgres(postgres(url), { preparedStatements: true }));
 */
export function pipelinedPostgres<T extends Sql>(sql: T, options: { preparedStatements: boolean }): T {
  const unsafe = (target: Sql) => withPrepare(target.unsafe, options.preparedStatements);
  return new Proxy(sql, {
    get(target, property, receiver) {
      if (property === 'unsafe') return unsafe(target);
      if (property === 'begin') return (first: unknown, second?: unknown) => begin(target, unsafe, first, second);
      return Reflect.get(target, property, receiver);
    },
  });
}

/** `unsafe` with every parameterised statement named (`prepare: true`) or, when off, none (whatever drizzle asks). */
function withPrepare(unsafe: Unsafe, prepare: boolean): Unsafe {
  return ((text: string, args?: unknown, options?: Record<string, unknown>) => {
    // `unsafe(text, options)` has no parameters, and a statement without any runs as a simple query.
    if (!Array.isArray(args) || args.length === 0) return (unsafe as (...a: unknown[]) => unknown)(text, args, options);
    return unsafe(text, args as never, { ...options, prepare });
  }) as Unsafe;
}

/**
 * `begin([options,] work)` on a reserved connection: BEGIN is handed to the driver before `work`
 * can issue anything (the driver sends a connection's statements in order), COMMIT when `work`
 * resolves, ROLLBACK when it throws; the connection goes back to the pool either way.
 */
async function begin(pool: Sql, unsafe: (target: Sql) => Unsafe, first: unknown, second?: unknown): Promise<unknown> {
  const [options, work] = typeof first === 'function' ? ['', first as Work] : [String(first), second as Work];
  const connection = await pool.reserve();
  const ahead: CommitAhead = {};
  try {
    const begun = connection.unsafe(`begin ${options.replace(/[^a-z ]/gi, '')}`).execute();
    // Awaited after the work; a failure is then already known and must not go unhandled meanwhile.
    begun.catch(() => {});
    let result: unknown;
    try {
      result = await work(transactionClient(connection, unsafe, ahead));
      await begun;
    } catch (error) {
      ahead.pending = false;
      // A COMMIT sent ahead already ends the transaction: rolled back if a statement failed.
      if (ahead.sent) await Promise.resolve(ahead.sent).catch(() => {});
      else await connection.unsafe('rollback').catch(() => {});
      throw error;
    }
    ahead.pending = false;
    // A statement that failed unnoticed (nobody awaited it) aborted the transaction: Postgres then
    // answers COMMIT with ROLLBACK instead of an error.
    const committed = await (ahead.sent ?? connection.unsafe('commit'));
    if (committed.command === 'ROLLBACK')
      throw new Error('The transaction was rolled back: one of its statements failed');
    return result;
  } finally {
    connection.release();
  }
}

/**
 * The reserved connection as a transaction, with savepoints for nested work and `COMMIT_AHEAD`.
 * A COMMIT requested ahead is handed over once the promise callbacks queued so far have run (a
 * `process.nextTick` from the work, which runs in one, fires when the microtask queue is empty):
 * the statements they issue still go before it, and in the same socket write (the driver writes
 * what is issued in one turn of the event loop together). A statement issued after it is a bug and
 * throws.
 */
function transactionClient(connection: ReservedSql, unsafe: (target: Sql) => Unsafe, ahead: CommitAhead): Sql {
  let savepoints = 0;
  const guarded = (target: Sql): Unsafe => {
    const inner = unsafe(target);
    return ((...args: Parameters<Unsafe>) => {
      if (ahead.sent) throw new Error('A statement was issued after its transaction’s COMMIT was sent ahead');
      return inner(...args);
    }) as Unsafe;
  };
  const commitAhead: CommitAheadControl = {
    request() {
      if (ahead.pending || ahead.sent) return;
      ahead.pending = true;
      process.nextTick(() => {
        if (!ahead.pending) return; // cancelled, or the work ended first
        ahead.pending = false;
        const sent = connection.unsafe('commit').execute();
        Promise.resolve(sent).catch(() => {});
        ahead.sent = sent as PromiseLike<{ command: string }>;
      });
    },
    cancel() {
      ahead.pending = false;
    },
  };
  const client: Sql = new Proxy(connection as unknown as Sql, {
    get(target, property, receiver) {
      if (property === 'unsafe') return guarded(target);
      if (property === COMMIT_AHEAD) return commitAhead;
      if (property === 'savepoint') {
        return async (first: unknown, second?: unknown) => {
          const work = (typeof first === 'function' ? first : second) as Work;
          const name = `s${++savepoints}`;
          await target.unsafe(`savepoint ${name}`);
          try {
            const result = await work(client);
            await target.unsafe(`release savepoint ${name}`);
            return result;
          } catch (error) {
            await target.unsafe(`rollback to savepoint ${name}`);
            throw error;
          }
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
  return client;
}
