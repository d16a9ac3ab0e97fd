import { type AppError, errors } from '@agentry/errors';
import { and, eq, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { prebuilt, slot } from '../prebuilt.ts';
import { idempotencyKeys } from '../schema.ts';
import { withTenantScope } from '../tenant-scope.ts';

export type IdempotencyRecord = typeof idempotencyKeys.$inferSelect;

/** How long a key's response is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/** What a request holding a key created: written with it, in the transaction that creates it. */
export interface IdempotentResource {
  type: 'run' | 'conversation';
  id: string;
}

/** One request's hold on a key: the fence its link, answer and release are checked against. */
export interface IdempotencyHold {
  tenantId: string;
  key: string;
  /** A fresh uuid per request. */
  holder: string;
}

export type IdempotencyClaim =
  /** The request holds the key; `resource`: what the dead request it took over from created. */
  | { claimed: true; takenOver: boolean; resource?: IdempotentResource }
  /** Another request's record: answered (replay it), or still within its lease (in use). */
  | { claimed: false; record: IdempotencyRecord };

/**
 * Claims a key for a request. A new key is reserved for `leaseMs`; an unanswered reservation whose
 * lease ran out belongs to a request that died (API killed, connection lost) and is taken over,
 * with what that request had created (`resource`), if anything. Otherwise the record another
 * request holds is returned (answered, or still being handled). Records older than the TTL are
 * replaced. One transaction; the takeover is one conditional update, so of two retries racing for
 * a dead reservation exactly one wins (the other waits for its row lock, then sees a live lease).
 *
 * @example
 * const claim = await claimIdempotencyKey(db, { tenantId, key, requestHash, holder: randomUUID(), leaseMs: 90_000 });
 * if (claim.claimed && claim.resource) answerFrom(claim.resource);
 */
export async function claimIdempotencyKey(
  db: Db,
  input: IdempotencyHold & { requestHash: string; leaseMs: number },
): Promise<IdempotencyClaim> {
  const { tenantId, key, requestHash, holder } = input;
  const expired = new Date(Date.now() - IDEMPOTENCY_TTL_MS);
  // The database's clock for leases: every API process compares against the same one.
  const leaseLength = sql`${`${Math.max(0, Math.round(input.leaseMs))} milliseconds`}::interval`;
  const lease = sql`now() + ${leaseLength}`;
  const thisKey = and(eq(idempotencyKeys.tenantId, tenantId), eq(idempotencyKeys.key, key));
  return withTenantScope(db, tenantId, async (tx) => {
    await tx.delete(idempotencyKeys).where(and(thisKey, lt(idempotencyKeys.createdAt, expired)));
    const inserted = await tx
      .insert(idempotencyKeys)
      .values({ tenantId, key, requestHash, holder, lockedUntil: lease })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (inserted.length > 0) return { claimed: true as const, takenOver: false };
    const [taken] = await tx
      .update(idempotencyKeys)
      .set({ holder, lockedUntil: lease })
      .where(
        and(
          thisKey,
          eq(idempotencyKeys.requestHash, requestHash),
          isNull(idempotencyKeys.statusCode),
          // A row of an API from before leases has none: its request is over after one lease.
          sql`coalesce(${idempotencyKeys.lockedUntil}, ${idempotencyKeys.createdAt} + ${leaseLength}) <= now()`,
        ),
      )
      .returning();
    if (taken) return { claimed: true as const, takenOver: true, ...resourceOf(taken) };
    const [record] = await tx.select().from(idempotencyKeys).where(thisKey);
    return record ? { claimed: false as const, record } : { claimed: true as const, takenOver: false };
  });
}

function resourceOf(record: IdempotencyRecord): { resource?: IdempotentResource } {
  const { resourceType: type, resourceId: id } = record;
  return (type === 'run' || type === 'conversation') && id ? { resource: { type, id } } : {};
}

/** What `agentry_assert` says when a link finds its key held by another request (migration 0012). */
const LEASE_LOST = 'idempotency_lease_lost';

/**
 * The link's update, fenced on the holder: `agentry_assert` raises when the key is no longer this
 * request's (a retry took it over), which rolls back the creating transaction even when its COMMIT
 * was sent ahead. So what a key's requests create is created once, whoever holds it when.
 */
const linkUpdate = prebuilt((db) => {
  const write = db
    .update(idempotencyKeys)
    .set({ resourceType: slot<string>('type'), resourceId: slot<string>('id') })
    .where(
      and(
        eq(idempotencyKeys.tenantId, sql.placeholder('tenantId')),
        eq(idempotencyKeys.key, sql.placeholder('key')),
        eq(idempotencyKeys.holder, sql.placeholder('holder')),
        isNull(idempotencyKeys.statusCode),
      ),
    )
    .returning({ key: idempotencyKeys.key });
  const linked = db.$with('linked', { key: idempotencyKeys.key }).as(write.getSQL());
  return db
    .with(linked)
    .select({ ok: sql<boolean>`agentry_assert(count(*) = 1, ${LEASE_LOST})` })
    .from(linked);
});

/**
 * Links what a request created to its key. Call it with the transaction that creates `resource`,
 * as one of its statements (it may go out behind a sent-ahead COMMIT): a retry that takes the key
 * over after a crash then answers with that resource instead of creating again. Rejects, and so
 * rolls the transaction back, with 409 `idempotency_key_in_use` when the key was taken over.
 *
 * @example
 * await withTenantScope(db, tenantId, async (tx) => {
 *   const created = await insertSomething(tx);
 *   await linkIdempotencyKey(tx, hold, { type: 'run', id: created.id });
 * });
 */
export function linkIdempotencyKey(tx: Db, hold: IdempotencyHold, resource: IdempotentResource): Promise<void> {
  return linkUpdate(tx, { ...hold, type: resource.type, id: resource.id }).then(
    () => {},
    (error: unknown) => {
      throw isLeaseLost(error) ? idempotencyKeyInUse() : error;
    },
  );
}

/** The database's own error, under drizzle's "Failed query" wrapper. */
function isLeaseLost(error: unknown): boolean {
  const { code, message, cause } = (error ?? {}) as { code?: unknown; message?: unknown; cause?: unknown };
  return (code === 'AG001' && message === LEASE_LOST) || (cause !== undefined && isLeaseLost(cause));
}

/**
 * 409 `idempotency_key_in_use`: another request holds the key (retry later).
 *
 * @example
 * throw idempotencyKeyInUse();
 */
export function idempotencyKeyInUse(retryAfterMs = 1000): AppError {
  return errors.of({
    code: 'idempotency_key_in_use',
    message: 'A request with this Idempotency-Key is still being handled',
    category: 'user',
    retryable: true,
    retryAfterMs,
  });
}

/**
 * Extends a live request's hold by `leaseMs` from now (the database's clock), while it has no
 * answer; false when the request no longer holds the key. A request renews while it works, so a
 * short lease still covers a long wait and a dead request's key is taken over soon after it died.
 *
 * @example
 * await renewIdempotencyKey(db, hold, 15_000);
 */
export async function renewIdempotencyKey(db: Db, hold: IdempotencyHold, leaseMs: number): Promise<boolean> {
  const lease = sql`now() + ${`${Math.max(0, Math.round(leaseMs))} milliseconds`}::interval`;
  const rows = await withTenantScope(db, hold.tenantId, (tx) =>
    tx
      .update(idempotencyKeys)
      .set({ lockedUntil: lease })
      .where(and(heldBy(hold), isNull(idempotencyKeys.statusCode), isNotNull(idempotencyKeys.lockedUntil)))
      .returning({ key: idempotencyKeys.key }),
  );
  return rows.length > 0;
}

/** Stores the request's answer for replay, if the request still holds the key. */
export async function completeIdempotencyKey(
  db: Db,
  hold: IdempotencyHold,
  response: { statusCode: number; body: unknown },
): Promise<void> {
  await withTenantScope(db, hold.tenantId, (tx) =>
    tx
      .update(idempotencyKeys)
      .set({
        statusCode: response.statusCode,
        responseBody: sql`${JSON.stringify(response.body)}::jsonb`,
        lockedUntil: null,
      })
      .where(heldBy(hold)),
  );
}

/**
 * Ends a request's hold without an answer to keep (it failed, or it answered with a stream). A key
 * with nothing linked is freed, so the client may retry it; one whose request created something
 * keeps that link with its lease ended, so the next retry answers with what was created.
 */
export async function releaseIdempotencyKey(db: Db, hold: IdempotencyHold): Promise<void> {
  await withTenantScope(db, hold.tenantId, async (tx) => {
    await tx.delete(idempotencyKeys).where(and(heldBy(hold), isNull(idempotencyKeys.resourceId)));
    await tx
      .update(idempotencyKeys)
      .set({ lockedUntil: sql`now()` })
      .where(and(heldBy(hold), isNotNull(idempotencyKeys.resourceId)));
  });
}

function heldBy(hold: IdempotencyHold) {
  return and(
    eq(idempotencyKeys.tenantId, hold.tenantId),
    eq(idempotencyKeys.key, hold.key),
    eq(idempotencyKeys.holder, hold.holder),
  );
}
