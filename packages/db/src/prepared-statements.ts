import type { Sql } from 'postgres';

type Unsafe = Sql['unsafe'];

/**
 * The postgres-js client with named (prepared) statements for drizzle's queries, in transactions
 * and savepoints too. drizzle runs every query as `unsafe(text, params, { prepare: false })`, and
 * postgres-js sends such a statement unnamed: Parse + Describe, a wait for the parameter types,
 * then Bind + Execute — two round trips, nothing pipelined behind it, and Postgres parses and plans
 * it each time. A named statement is described once per connection; afterwards it costs one Bind +
 * Execute that travels with the statements issued next to it. The set of statement texts is the
 * repositories' query shapes, so the per-connection cache stays bounded.
 *
 * @example
 * const db = drizzle(withPreparedStatements(postgres(url)), { schema });
 */
export function withPreparedStatements<T extends Sql>(sql: T): T {
  return new Proxy(sql, {
    get(target, property, receiver) {
      if (property === 'unsafe') return preparedUnsafe(target.unsafe);
      if (property === 'begin') return wrapScope(target.begin as ScopeOpener);
      if (property === 'savepoint' && typeof (target as { savepoint?: unknown }).savepoint === 'function') {
        return wrapScope((target as unknown as { savepoint: ScopeOpener }).savepoint);
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

function preparedUnsafe(unsafe: Unsafe): Unsafe {
  return ((text: string, args?: unknown, options?: Record<string, unknown>) => {
    // `unsafe(text, options)` has no parameters, and a statement without any runs as a simple query.
    if (!Array.isArray(args) || args.length === 0) return (unsafe as (...a: unknown[]) => unknown)(text, args, options);
    return unsafe(text, args as never, { ...options, prepare: true });
  }) as Unsafe;
}

/** `begin([options,] fn)` / `savepoint([name,] fn)`: hands `fn` the wrapped transaction client. */
type ScopeOpener = (first: unknown, second?: unknown) => Promise<unknown>;

function wrapScope(open: ScopeOpener): ScopeOpener {
  return (first, second) => {
    const wrap = (fn: (tx: Sql) => unknown) => (tx: Sql) => fn(withPreparedStatements(tx));
    return typeof first === 'function'
      ? open(wrap(first as (tx: Sql) => unknown))
      : open(first, wrap(second as (tx: Sql) => unknown));
  };
}
