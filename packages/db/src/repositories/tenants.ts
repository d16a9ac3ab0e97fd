import { and, desc, eq, gte, isNull, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import { prebuilt } from '../prebuilt.ts';
import { apiKeys, runs, tenants } from '../schema.ts';
import { withSystemScope, withTenantScope } from '../tenant-scope.ts';

export type Tenant = typeof tenants.$inferSelect;
export type ApiKeyRecord = typeof apiKeys.$inferSelect;

/**
 * Creates a tenant and its first key in one transaction (the key hash is computed by the caller),
 * scoped to the new tenant's id: no system scope needed.
 */
export async function createTenantWithKey(
  db: Db,
  input: { name: string; key: { prefix: string; hash: string } },
): Promise<{ tenant: Tenant; apiKey: ApiKeyRecord }> {
  const id = newId();
  return withTenantScope(db, id, async (tx) => {
    const [tenant] = await tx.insert(tenants).values({ id, name: input.name }).returning();
    const [apiKey] = await tx
      .insert(apiKeys)
      .values({ id: newId(), tenantId: tenant!.id, kind: 'secret', prefix: input.key.prefix, keyHash: input.key.hash })
      .returning();
    return { tenant: tenant!, apiKey: apiKey! };
  });
}

/**
 * The active key with this hash and its tenant, or undefined (revoked keys and suspended tenants
 * too). System scope: the tenant is what this lookup finds out.
 */
export async function findActiveApiKey(
  db: Db,
  keyHash: string,
): Promise<{ key: ApiKeyRecord; tenant: Tenant } | undefined> {
  const rows = await withSystemScope(db, 'API key lookup by hash', (tx) =>
    tx
      .select({ key: apiKeys, tenant: tenants })
      .from(apiKeys)
      .innerJoin(tenants, eq(tenants.id, apiKeys.tenantId))
      .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt), eq(tenants.status, 'active')))
      .limit(1),
  );
  return rows[0];
}

/** Records a key's last use; callers throttle how often they call this. */
export async function touchApiKey(db: Db, tenantId: string, keyId: string, at: Date): Promise<void> {
  await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(apiKeys)
      .set({ lastUsedAt: at })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.tenantId, tenantId))),
  );
}

/** Whether any tenant exists (0 or 1): system scope, for seeding an empty installation. */
export async function countTenants(db: Db): Promise<number> {
  const rows = await withSystemScope(db, 'demo seed: is the installation empty', (tx) =>
    tx.select({ id: tenants.id }).from(tenants).limit(1),
  );
  return rows.length;
}

export async function createApiKey(
  db: Db,
  input: {
    tenantId: string;
    kind: 'secret' | 'publishable';
    name?: string;
    prefix: string;
    hash: string;
    scopes: string[];
    allowedAgents?: string[];
    allowedOrigins?: string[];
    /** Publishable keys: the key itself (public), kept so it can be shown again. Never a secret key. */
    publishableKey?: string;
  },
): Promise<ApiKeyRecord> {
  const [row] = await withTenantScope(db, input.tenantId, (tx) =>
    tx
      .insert(apiKeys)
      .values({
        id: newId(),
        tenantId: input.tenantId,
        kind: input.kind,
        name: input.name ?? null,
        prefix: input.prefix,
        keyHash: input.hash,
        scopes: input.scopes,
        allowedAgents: input.allowedAgents ?? null,
        allowedOrigins: input.allowedOrigins ?? null,
        // A secret key's value is never stored, whatever the caller passes.
        publishableKey: input.kind === 'publishable' ? (input.publishableKey ?? null) : null,
      })
      .returning(),
  );
  return row!;
}

export async function listApiKeys(db: Db, tenantId: string): Promise<ApiKeyRecord[]> {
  return withTenantScope(db, tenantId, (tx) =>
    tx.select().from(apiKeys).where(eq(apiKeys.tenantId, tenantId)).orderBy(desc(apiKeys.id)),
  );
}

/** One of the tenant's keys, revoked or not; undefined when it is not the tenant's. */
export async function getApiKey(db: Db, tenantId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.tenantId, tenantId))),
  );
  return row;
}

/** Revokes a key (idempotent); undefined when it is not the tenant's. */
export async function revokeApiKey(db: Db, tenantId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(apiKeys)
      .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.tenantId, tenantId)))
      .returning(),
  );
  return row;
}

const tenantById = prebuilt((db) =>
  db
    .select()
    .from(tenants)
    .where(eq(tenants.id, sql.placeholder('tenantId'))),
);

export async function getTenant(db: Db, tenantId: string): Promise<Tenant | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) => tenantById(tx, { tenantId }));
  return row;
}

export type TenantSettings = Partial<
  Pick<Tenant, 'status' | 'egressAllowlist' | 'dailyRunLimit' | 'dailyTokenLimit' | 'requestsPerMinute' | 'name'>
>;

export async function updateTenant(db: Db, tenantId: string, settings: TenantSettings): Promise<Tenant | undefined> {
  if (Object.keys(settings).length === 0) return getTenant(db, tenantId);
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx.update(tenants).set(settings).where(eq(tenants.id, tenantId)).returning(),
  );
  return row;
}

/** Deletes a tenant and everything it owns (rows cascade; referential actions bypass row security). */
export async function deleteTenant(db: Db, tenantId: string): Promise<boolean> {
  const rows = await withTenantScope(db, tenantId, (tx) =>
    tx.delete(tenants).where(eq(tenants.id, tenantId)).returning({ id: tenants.id }),
  );
  return rows.length > 0;
}

/** Runs started and model tokens used by a tenant since `since` (for daily quotas). */
export async function tenantUsageSince(
  db: Db,
  tenantId: string,
  since: Date,
): Promise<{ runs: number; tokens: number }> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select({
        runs: sql<number>`count(*)`,
        tokens: sql<number>`coalesce(sum((${runs.usage}->>'inputTokens')::bigint + (${runs.usage}->>'outputTokens')::bigint), 0)`,
      })
      .from(runs)
      .where(and(eq(runs.tenantId, tenantId), gte(runs.createdAt, since))),
  );
  return { runs: Number(row?.runs ?? 0), tokens: Number(row?.tokens ?? 0) };
}
