import { type AppError, errors } from '@agentry/errors';
import { sql } from 'drizzle-orm';
import type { Db } from './database.ts';
import { isId } from './ids.ts';
import { COMMIT_AHEAD, type CommitAheadControl } from './postgres-pipelining.ts';

/** A transaction of `Db`; usable wherever a `Db` is expected. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/**
 * The second argument of a scoped transaction's work: sends the transaction's COMMIT right behind
 * the statements the work has issued — including those its pending promise callbacks issue (a
 * query builder hands its statement over a microtask later) — in the same socket write, without
 * waiting for their results, so the rest of the transaction takes one round trip on Postgres. For
 * work that decides nothing more from what these statements return: every check must be one the
 * database makes (a failing statement, e.g. `agentry_assert`, rolls the whole transaction back; a
 * check made here afterwards could not), and the work issues nothing after waiting for a result
 * (that throws). A no-op when the work runs in a caller's transaction (the caller commits) and
 * without a pipelining driver (PGlite commits when the work ends, as usual).
 *
 * @example
 * await withTenantScope(db, tenantId, async (tx, commitAhead) => {
 *   const written = Promise.all([fencedUpdate.execute(), insert.execute()]);
 *   commitAhead();
 *   await written;
 * });
 */
export type CommitAhead = () => void;

const noCommitAhead: CommitAhead = () => {};

type Scope = { kind: 'tenant'; tenantId: string } | { kind: 'system'; reason: string };

/** The scope each open scoped transaction was given, so nested repository calls reuse it. */
const scopes = new WeakMap<object, Scope>();

function scopeError(message: string): AppError {
  return errors.system('tenant_scope_violation', message);
}

/**
 * Runs `work` in a transaction whose first statement binds it to one tenant
 * (`set_config('app.tenant_id', …, true)`): the row-level security policies then show and accept
 * only that tenant's rows. The setting is transaction-local, so a pooled connection never carries
 * it into another request. Called with a transaction already bound to the same tenant, `work`
 * runs in it (no nested transaction, no extra round trip); bound to another tenant, it throws.
 *
 * @example
 * const agent = await withTenantScope(db, tenantId, (tx) =>
 *   tx.select().from(agents).where(eq(agents.id, agentId)),
 * );
 */
export async function withTenantScope<T>(
  db: Db,
  tenantId: string,
  work: (tx: Tx, commitAhead: CommitAhead) => Promise<T>,
): Promise<T> {
  if (!isId(tenantId)) throw scopeError(`A tenant scope needs a tenant id (uuid), got ${JSON.stringify(tenantId)}`);
  const outer = scopes.get(db);
  if (outer?.kind === 'tenant') {
    if (outer.tenantId !== tenantId) {
      throw scopeError(`A transaction scoped to tenant ${outer.tenantId} cannot work on tenant ${tenantId}`);
    }
    return work(db as Tx, noCommitAhead);
  }
  // A system transaction already sees every tenant; the repositories still filter by tenant id.
  if (outer?.kind === 'system') return work(db as Tx, noCommitAhead);
  return db.transaction((tx) => scoped(tx, { kind: 'tenant', tenantId }, work));
}

/**
 * Runs `work` in a transaction that sees every tenant's rows (`set_config('app.system', 'on',
 * true)`, honoured by the row-level security policies). Only for work that cannot know its tenant
 * yet or spans tenants: finding an API key by its hash, the stuck-run sweeper, … Every caller is
 * listed in docs/architecture/tenant-isolation.md; `reason` says why, for readers and greps.
 * Refused inside a tenant-scoped transaction: a tenant's work never widens itself.
 *
 * @example
 * const stale = await withSystemScope(db, 'stuck-run sweeper', (tx) => tx.select().from(runs));
 */
export async function withSystemScope<T>(
  db: Db,
  reason: string,
  work: (tx: Tx, commitAhead: CommitAhead) => Promise<T>,
): Promise<T> {
  const outer = scopes.get(db);
  if (outer?.kind === 'tenant') {
    throw scopeError(`A transaction scoped to tenant ${outer.tenantId} cannot widen to the system scope (${reason})`);
  }
  if (outer?.kind === 'system') return work(db as Tx, noCommitAhead);
  return db.transaction((tx) => scoped(tx, { kind: 'system', reason }, work));
}

/** Binds a new transaction to `scope`, then runs `work`; a failed binding is the error reported. */
async function scoped<T>(tx: Tx, scope: Scope, work: (tx: Tx, commitAhead: CommitAhead) => Promise<T>): Promise<T> {
  const binding = await (scope.kind === 'tenant'
    ? bindScope(tx, 'app.tenant_id', scope.tenantId)
    : bindScope(tx, 'app.system', 'on'));
  scopes.set(tx, scope);
  try {
    return await work(tx, () => pipelinedClient(tx)?.[COMMIT_AHEAD]?.request());
  } catch (error) {
    // Failed before its COMMIT left (the usual case: in the turn it was requested): it must not leave.
    pipelinedClient(tx)?.[COMMIT_AHEAD]?.cancel();
    // The statements after a failed binding fail only because the transaction is aborted.
    throw (await binding.failure) ?? error;
  }
}

/** The postgres-js transaction client under a drizzle transaction, when the driver is postgres-js. */
interface PipelinedClient {
  unsafe(query: string, params: unknown[]): { execute(): PromiseLike<unknown> };
  savepoint: unknown;
  [COMMIT_AHEAD]?: CommitAheadControl;
}

function pipelinedClient(tx: Tx): PipelinedClient | undefined {
  const client = (tx as { session?: { client?: Partial<PipelinedClient> } }).session?.client;
  return typeof client?.unsafe === 'function' && typeof client.savepoint === 'function'
    ? (client as PipelinedClient)
    : undefined;
}

/**
 * Sets the transaction-local scope as the transaction's first statement. On Postgres (postgres-js)
 * it is sent without waiting for its reply: the driver writes a transaction's statements in the
 * order they are issued on its one connection, and this one is handed over before `work` can issue
 * any, so it still runs first while the next statement travels in the same round trip (one round
 * trip less per transaction). Its failure aborts the transaction, so what follows fails too;
 * `failure` resolves to it for the caller to report instead. PGlite has no round trips to save:
 * awaited there.
 */
async function bindScope(
  tx: Tx,
  setting: 'app.tenant_id' | 'app.system',
  value: string,
): Promise<{ failure: Promise<unknown> }> {
  const client = pipelinedClient(tx);
  if (!client) {
    await tx.execute(sql`select set_config(${setting}, ${value}, true)`);
    return { failure: Promise.resolve(undefined) };
  }
  // `execute()` hands the query to the driver now; its failure is kept for the caller to report.
  const sent = client.unsafe('select set_config($1, $2, true)', [setting, value]).execute();
  const failure = Promise.resolve(sent).then(
    () => undefined,
    (error: unknown) => error,
  );
  return { failure };
}
