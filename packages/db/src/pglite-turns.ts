import type { PGlite } from '@electric-sql/pglite';

/**
 * Makes PGlite's queries take turns with the event loop's I/O.
 *
 * PGlite executes a query synchronously on the event loop, and when many are queued each next one
 * starts in a microtask of the previous: a burst of requests then holds the loop for hundreds of
 * milliseconds, and even `/healthz` waits behind it. Here every top-level `query`, `exec` and
 * `transaction` first waits for its turn (one at a time, as PGlite runs them anyway) and then for a
 * `setImmediate`, so the loop polls sockets between two of them; so does each statement of a
 * transaction, which keeps the lock in between. PGlite itself already serialises `query` and `transaction`
 * on one lock, so no caller can be waiting on this one from inside a transaction. Call it once the
 * client is ready: PGlite's start-up runs its own `query` inside the first caller's.
 *
 * @example
 * const client = new PGlite();
 * await client.waitReady;
 * takeTurnsWithIo(client);
 * await client.query('select 1'); // runs in a later turn of the event loop
 */
export function takeTurnsWithIo(client: PGlite): void {
  let previous: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const turn = previous.then(nextLoopTurn).then(work);
    previous = turn.catch(() => undefined);
    return turn;
  };
  const query = client.query.bind(client);
  const exec = client.exec.bind(client);
  const transaction = client.transaction.bind(client);
  client.query = ((...args: Parameters<PGlite['query']>) => inTurn(() => query(...args))) as PGlite['query'];
  client.exec = (...args: Parameters<PGlite['exec']>) => inTurn(() => exec(...args));
  client.transaction = (<T>(callback: (tx: Transaction) => Promise<T>) =>
    inTurn(() => transaction((tx) => callback(yieldingTransaction(tx))))) as PGlite['transaction'];
}

type Transaction = Parameters<Parameters<PGlite['transaction']>[0]>[0];

/**
 * The transaction's handle whose queries also wait for a loop turn: a transaction of several
 * statements would otherwise run them back to back. Other queries wait for the lock meanwhile.
 */
function yieldingTransaction(tx: Transaction): Transaction {
  const handle = Object.create(tx) as Transaction;
  handle.query = (async (...args: Parameters<Transaction['query']>) => {
    await nextLoopTurn();
    return tx.query(...args);
  }) as Transaction['query'];
  handle.exec = async (...args: Parameters<Transaction['exec']>) => {
    await nextLoopTurn();
    return tx.exec(...args);
  };
  return handle;
}

/** Resolves in the check phase of the loop's next turn, after it has polled for I/O. */
function nextLoopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
