import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { secrets } from '../schema.ts';
import { withTenantScope } from '../tenant-scope.ts';

export type SecretRow = typeof secrets.$inferSelect;
export type SealedValue = Pick<SecretRow, 'keyId' | 'iv' | 'ciphertext' | 'tag'>;

/** Creates or replaces a sealed secret; returns whether it existed before. */
export async function putSecret(
  db: Db,
  tenantId: string,
  name: string,
  sealed: SealedValue,
): Promise<{ created: boolean }> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .insert(secrets)
      .values({ tenantId, name, ...sealed })
      .onConflictDoUpdate({ target: [secrets.tenantId, secrets.name], set: { ...sealed, updatedAt: sql`now()` } })
      .returning({ createdAt: secrets.createdAt, updatedAt: secrets.updatedAt }),
  );
  return { created: row!.createdAt.getTime() === row!.updatedAt.getTime() };
}

/** Names and dates only: values never leave through listings. */
export async function listSecrets(
  db: Db,
  tenantId: string,
): Promise<Array<Pick<SecretRow, 'name' | 'createdAt' | 'updatedAt' | 'keyId'>>> {
  return withTenantScope(db, tenantId, (tx) =>
    tx
      .select({ name: secrets.name, createdAt: secrets.createdAt, updatedAt: secrets.updatedAt, keyId: secrets.keyId })
      .from(secrets)
      .where(eq(secrets.tenantId, tenantId))
      .orderBy(asc(secrets.name)),
  );
}

export async function deleteSecret(db: Db, tenantId: string, name: string): Promise<boolean> {
  const rows = await withTenantScope(db, tenantId, (tx) =>
    tx
      .delete(secrets)
      .where(and(eq(secrets.tenantId, tenantId), eq(secrets.name, name)))
      .returning({ name: secrets.name }),
  );
  return rows.length > 0;
}

/** The sealed values of the named secrets that exist. */
export async function getSealedSecrets(
  db: Db,
  tenantId: string,
  names: string[],
): Promise<Array<SealedValue & { name: string }>> {
  if (names.length === 0) return [];
  return withTenantScope(db, tenantId, (tx) =>
    tx
      .select({
        name: secrets.name,
        keyId: secrets.keyId,
        iv: secrets.iv,
        ciphertext: secrets.ciphertext,
        tag: secrets.tag,
      })
      .from(secrets)
      .where(and(eq(secrets.tenantId, tenantId), inArray(secrets.name, names))),
  );
}
