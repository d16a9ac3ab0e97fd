import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { idempotencyKeys } from '../schema.ts';
import { withTenantScope } from '../tenant-scope.ts';

export type IdempotencyRecord = typeof idempotencyKeys.$inferSelect;

/** How long a key's response is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/**
 * Claims a key for a request, or returns the record another request already holds (finished or
 * not). Records older than the TTL are replaced. One transaction for the three statements.
 */
export async function claimIdempotencyKey(
  db: Db,
  input: { tenantId: string; key: string; requestHash: string },
): Promise<{ claimed: true } | { claimed: false; record: IdempotencyRecord }> {
  const expired = new Date(Date.now() - IDEMPOTENCY_TTL_MS);
  return withTenantScope(db, input.tenantId, async (tx) => {
    await tx
      .delete(idempotencyKeys)
      .where(
        and(
          eq(idempotencyKeys.tenantId, input.tenantId),
          eq(idempotencyKeys.key, input.key),
          lt(idempotencyKeys.createdAt, expired),
        ),
      );
    const inserted = await tx
      .insert(idempotencyKeys)
      .values(input)
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (inserted.length > 0) return { claimed: true };
    const [record] = await tx
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.tenantId, input.tenantId), eq(idempotencyKeys.key, input.key)));
    return record ? { claimed: false as const, record } : { claimed: true as const };
  });
}

export async function completeIdempotencyKey(
  db: Db,
  tenantId: string,
  key: string,
  response: { statusCode: number; body: unknown },
): Promise<void> {
  await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(idempotencyKeys)
      .set({ statusCode: response.statusCode, responseBody: sql`${JSON.stringify(response.body)}::jsonb` })
      .where(and(eq(idempotencyKeys.tenantId, tenantId), eq(idempotencyKeys.key, key))),
  );
}

/** Frees a key whose request failed on our side, so the client may retry with it. */
export async function releaseIdempotencyKey(db: Db, tenantId: string, key: string): Promise<void> {
  await withTenantScope(db, tenantId, (tx) =>
    tx.delete(idempotencyKeys).where(and(eq(idempotencyKeys.tenantId, tenantId), eq(idempotencyKeys.key, key))),
  );
}
