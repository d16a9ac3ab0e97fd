import { sql } from 'drizzle-orm';
import type { Db } from './database.ts';

/** What drizzle's query builders give `prepare`: a statement with its text and result mapping. */
interface Prepared<R> {
  execute(values?: Record<string, unknown>): Promise<R>;
}

/** A query builder that can be prepared (select, insert, update, delete). */
interface Preparable<R> {
  prepare(name: string): Prepared<R>;
}

/**
 * A statement whose SQL text and result mapping drizzle builds once, on its first run, and that
 * every later run only fills with its values (`sql.placeholder(name)` in the builder). drizzle
 * otherwise rebuilds the text from the builder on each run — about 0.1 ms of CPU per statement on
 * the benchmark machine, on every statement of the hot paths. The statement runs on the
 * connection of the `db` it is given: a transaction (its tenant scope applies) or the pool.
 *
 * The built statement is reused with another connection by swapping its `client`, the one field
 * both drizzle drivers (postgres-js, PGlite) keep it in; `prebuilt.test.ts` checks both.
 *
 * @example
 * const tenantById = prebuilt((db) => db.select().from(tenants).where(eq(tenants.id, sql.placeholder('id'))));
 * const [tenant] = await tenantById(tx, { id: tenantId });
 */
export function prebuilt<R>(build: (db: Db) => Preparable<R>): (db: Db, values: Record<string, unknown>) => Promise<R> {
  // One per driver: a process normally has one, the test suites run both.
  const templates = new Map<unknown, Prepared<R>>();
  return (db, values) => {
    const session = sessionOf(db);
    let template = templates.get(session.constructor);
    if (!template) {
      template = build(db).prepare('prebuilt');
      templates.set(session.constructor, template);
    }
    const prepared = Object.create(template) as Prepared<R> & { client: unknown };
    prepared.client = session.client;
    return prepared.execute(values);
  };
}

function sessionOf(db: Db): { client: unknown; constructor: unknown } {
  const session = (db as unknown as { session?: { client?: unknown } }).session;
  if (!session?.client) throw new Error('A prebuilt statement needs a drizzle database or transaction');
  return session as { client: unknown; constructor: unknown };
}

/**
 * `sql.placeholder(name)` where drizzle's types ask for a value (an update's `set`): drizzle wraps
 * it with the column's encoder like any value, as it does in an insert's `values`.
 *
 * @example
 * db.update(toolCalls).set({ isError: slot<boolean>('isError') })
 */
export function slot<T>(name: string): T {
  return sql.placeholder(name) as unknown as T;
}
