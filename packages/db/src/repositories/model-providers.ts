import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { type ModelProviderKind, modelProviders, tenants } from '../schema.ts';
import { type Tx, withTenantScope } from '../tenant-scope.ts';
import type { SealedValue } from './secrets.ts';

export type ModelProviderRow = typeof modelProviders.$inferSelect;

/** What a provider's settings change: an absent field keeps its stored value, null clears it. */
export interface ModelProviderChange {
  sealedKey?: SealedValue | null;
  baseUrl?: string | null;
  defaultModel?: string | null;
  isDefault?: boolean;
  models?: string[];
}

/** A provider as listings show it: everything but the sealed key, and whether one is set. */
export type ModelProviderView = Omit<ModelProviderRow, 'keyId' | 'iv' | 'ciphertext' | 'tag'> & { keySet: boolean };

const view = (row: ModelProviderRow): ModelProviderView => {
  const { keyId, iv: _iv, ciphertext: _c, tag: _t, ...rest } = row;
  return { ...rest, keySet: keyId !== null };
};

const sealedColumns = (sealed: SealedValue | null) => sealed ?? { keyId: null, iv: null, ciphertext: null, tag: null };

/**
 * Creates or changes a tenant's provider; making it the default takes that from the others in the
 * same transaction. Returns the provider and whether it was new.
 *
 * @example
 * await putModelProvider(db, tenantId, 'anthropic', { sealedKey: box.seal(key, aad), isDefault: true });
 */
export async function putModelProvider(
  db: Db,
  tenantId: string,
  provider: ModelProviderKind,
  change: ModelProviderChange,
): Promise<{ provider: ModelProviderView; created: boolean }> {
  return withTenantScope(db, tenantId, async (tx) => {
    if (change.isDefault) {
      await tx
        .update(modelProviders)
        .set({ isDefault: false })
        .where(and(eq(modelProviders.tenantId, tenantId), ne(modelProviders.provider, provider)));
    }
    const set = {
      ...(change.sealedKey !== undefined ? sealedColumns(change.sealedKey) : {}),
      ...(change.baseUrl !== undefined ? { baseUrl: change.baseUrl } : {}),
      ...(change.defaultModel !== undefined ? { defaultModel: change.defaultModel } : {}),
      ...(change.isDefault !== undefined ? { isDefault: change.isDefault } : {}),
      ...(change.models !== undefined ? { models: change.models } : {}),
    };
    const [row] = await tx
      .insert(modelProviders)
      .values({ tenantId, provider, ...set })
      .onConflictDoUpdate({
        target: [modelProviders.tenantId, modelProviders.provider],
        set: { ...set, updatedAt: sql`now()` },
      })
      .returning();
    await markProviders(tx, tenantId);
    return { provider: view(row!), created: row!.createdAt.getTime() === row!.updatedAt.getTime() };
  });
}

/** A tenant's providers, keys left out (`keySet` says whether one is stored). */
export async function listModelProviders(db: Db, tenantId: string): Promise<ModelProviderView[]> {
  const rows = await withTenantScope(db, tenantId, (tx) =>
    tx.select().from(modelProviders).where(eq(modelProviders.tenantId, tenantId)).orderBy(asc(modelProviders.provider)),
  );
  return rows.map(view);
}

/**
 * A tenant's providers with their sealed keys, for resolving a run's model (the run service and
 * the worker's setup open them with the secret box).
 */
export async function getSealedModelProviders(db: Db, tenantId: string): Promise<ModelProviderRow[]> {
  return withTenantScope(db, tenantId, (tx) =>
    tx.select().from(modelProviders).where(eq(modelProviders.tenantId, tenantId)),
  );
}

/** Stores the models a connection test listed (when the provider still exists). */
export async function setModelProviderModels(
  db: Db,
  tenantId: string,
  provider: ModelProviderKind,
  models: string[],
): Promise<void> {
  await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(modelProviders)
      .set({ models })
      .where(and(eq(modelProviders.tenantId, tenantId), eq(modelProviders.provider, provider))),
  );
}

export async function deleteModelProvider(db: Db, tenantId: string, provider: ModelProviderKind): Promise<boolean> {
  const rows = await withTenantScope(db, tenantId, async (tx) => {
    const deleted = await tx
      .delete(modelProviders)
      .where(and(eq(modelProviders.tenantId, tenantId), eq(modelProviders.provider, provider)))
      .returning({ provider: modelProviders.provider });
    await markProviders(tx, tenantId);
    return deleted;
  });
  return rows.length > 0;
}

/**
 * Keeps `tenants.has_model_providers` true exactly while the tenant has a provider row, in the
 * transaction that changed them (the tenant row's change also tells the API processes' key caches).
 */
async function markProviders(tx: Tx, tenantId: string): Promise<void> {
  await tx
    .update(tenants)
    .set({
      hasModelProviders: sql`exists (select 1 from ${modelProviders} where ${modelProviders.tenantId} = ${tenantId})`,
    })
    .where(eq(tenants.id, tenantId));
}
