import { AppError } from '@agentry/errors';
import { sql } from 'drizzle-orm';
import type { Db } from './database.ts';
import { isId } from './ids.ts';

/** A transaction of `Db`; usable wherever a `Db` is expected. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

type Scope = { kind: 'tenant'; tenantId: string } | { kind: 'system'; reason: string };

/** The scope each open scoped transaction was given, so nested repository calls reuse it. */
const scopes = new WeakMap<object, Scope>();

function scopeError(message: string): AppError {
  return new AppError({ code: 'tenant_scope_violation', message, category: 'system', retryable: false });
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
export async function withTenantScope<T>(db: Db, tenantId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  if (!isId(tenantId)) throw scopeError(`A tenant scope needs a tenant id (uuid), got ${JSON.stringify(tenantId)}`);
  const outer = scopes.get(db);
  if (outer?.kind === 'tenant') {
    if (outer.tenantId !== tenantId) {
      throw scopeError(`A transaction scoped to tenant ${outer.tenantId} cannot work on tenant ${tenantId}`);
    }
    return work(db as Tx);
  }
  // A system transaction already sees every tenant; the repositories still filter by tenant id.
  if (outer?.kind === 'system') return work(db as Tx);
  return db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('app.tenant_id', ${tenantId}, true)`);
    scopes.set(tx, { kind: 'tenant', tenantId });
    return work(tx);
  });
}

/**
 * Runs `work` in a transaction that sees every tenant's rows (`set_config('app.system', 'on',
 * true)`, honoured by the row-level security policies). Only for work that cannot know its tenant
 * yet or spans tenants: finding an API key by its hash, the stuck-run sweeper, … Every caller is
 * listed in ARCHITECTURE.md ("Tenant isolation"); `reason` says why, for readers and greps.
 * Refused inside a tenant-scoped transaction: a tenant's work never widens itself.
 *
 * @example
 * const stale = await withSystemScope(db, 'stuck-run sweeper', (tx) => tx.select().from(runs));
 */
export async function withSystemScope<T>(db: Db, reason: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  const outer = scopes.get(db);
  if (outer?.kind === 'tenant') {
    throw scopeError(`A transaction scoped to tenant ${outer.tenantId} cannot widen to the system scope (${reason})`);
  }
  if (outer?.kind === 'system') return work(db as Tx);
  return db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('app.system', 'on', true)`);
    scopes.set(tx, { kind: 'system', reason });
    return work(tx);
  });
}
