import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import { type AccountTokenPurpose, accountTokens, userSessions, users } from '../schema.ts';
import type { User } from './users.ts';

export type AccountToken = typeof accountTokens.$inferSelect;

/**
 * Stores a mailed token for `user` (its SHA-256 only), and drops the user's expired or used ones
 * of the same purpose on the way.
 *
 * @example
 * await createAccountToken(db, { user, purpose: 'password_reset', tokenHash, expiresAt });
 */
export async function createAccountToken(
  db: Db,
  input: { user: Pick<User, 'id' | 'email'>; purpose: AccountTokenPurpose; tokenHash: string; expiresAt: Date },
): Promise<AccountToken> {
  return db.transaction(async (tx) => {
    await tx
      .delete(accountTokens)
      .where(
        and(
          eq(accountTokens.userId, input.user.id),
          eq(accountTokens.purpose, input.purpose),
          sql`(${accountTokens.usedAt} is not null or ${accountTokens.expiresAt} <= now())`,
        ),
      );
    const [row] = await tx
      .insert(accountTokens)
      .values({
        id: newId(),
        userId: input.user.id,
        purpose: input.purpose,
        tokenHash: input.tokenHash,
        email: input.user.email,
        expiresAt: input.expiresAt,
      })
      .returning();
    return row!;
  });
}

/** The token with this hash and purpose (whatever its state) and its user, or undefined. */
export async function findAccountToken(
  db: Db,
  purpose: AccountTokenPurpose,
  tokenHash: string,
): Promise<{ token: AccountToken; user: User } | undefined> {
  const [row] = await db
    .select({ token: accountTokens, user: users })
    .from(accountTokens)
    .innerJoin(users, eq(users.id, accountTokens.userId))
    .where(and(eq(accountTokens.tokenHash, tokenHash), eq(accountTokens.purpose, purpose)))
    .limit(1);
  return row;
}

export type RedeemResult = { status: 'ok'; user: User } | { status: 'gone' };

/**
 * Uses a token once, in one transaction: marks it used (only if unused, unexpired and still for the
 * user's current email), marks the email verified (the token was mailed to it), and, for a password
 * reset, sets the new password hash and ends every session of the user. `gone` when another request
 * used it first or it expired in the meantime; nothing is written then.
 *
 * @example
 * await redeemAccountToken(db, token, { passwordHash });
 */
export async function redeemAccountToken(
  db: Db,
  token: Pick<AccountToken, 'id' | 'userId' | 'email'>,
  change: { passwordHash?: string } = {},
  now = new Date(),
): Promise<RedeemResult> {
  return db
    .transaction(async (tx) => {
      const [used] = await tx
        .update(accountTokens)
        .set({ usedAt: now })
        .where(and(eq(accountTokens.id, token.id), isNull(accountTokens.usedAt), gt(accountTokens.expiresAt, now)))
        .returning();
      if (!used) return { status: 'gone' } as const;
      const [user] = await tx
        .update(users)
        .set({
          // An ISO string: postgres-js does not serialise a Date inside raw SQL.
          emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, ${now.toISOString()}::timestamptz)`,
          ...(change.passwordHash ? { passwordHash: change.passwordHash, updatedAt: now } : {}),
        })
        .where(and(eq(users.id, token.userId), eq(users.email, token.email)))
        .returning();
      // The address changed since the token was mailed: thrown to roll the use back.
      if (!user) throw new TokenGone();
      if (change.passwordHash) await tx.delete(userSessions).where(eq(userSessions.userId, user.id));
      return { status: 'ok', user } as const;
    })
    .catch((error: unknown) => {
      if (error instanceof TokenGone) return { status: 'gone' } as const;
      throw error;
    });
}

class TokenGone extends Error {}
