import { and, eq, gt, lte } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import { userSessions, users } from '../schema.ts';
import type { User } from './users.ts';

export type UserSession = typeof userSessions.$inferSelect;

/**
 * Stores a new dashboard session (the cookie token's SHA-256, never the token), and drops the
 * user's expired ones on the way.
 *
 * @example
 * await createUserSession(db, { userId, tokenHash, csrfToken, expiresAt });
 */
export async function createUserSession(
  db: Db,
  input: { userId: string; tokenHash: string; csrfToken: string; expiresAt: Date },
): Promise<UserSession> {
  return db.transaction(async (tx) => {
    await tx
      .delete(userSessions)
      .where(and(eq(userSessions.userId, input.userId), lte(userSessions.expiresAt, new Date())));
    const [row] = await tx
      .insert(userSessions)
      .values({ id: newId(), ...input })
      .returning();
    return row!;
  });
}

/** The unexpired session with this token hash and its user, or undefined. */
export async function findUserSession(
  db: Db,
  tokenHash: string,
  now = new Date(),
): Promise<{ session: UserSession; user: User } | undefined> {
  const [row] = await db
    .select({ session: userSessions, user: users })
    .from(userSessions)
    .innerJoin(users, eq(users.id, userSessions.userId))
    .where(and(eq(userSessions.tokenHash, tokenHash), gt(userSessions.expiresAt, now)))
    .limit(1);
  return row;
}

/** Records a session's last use; callers throttle how often. */
export async function touchUserSession(db: Db, sessionId: string, at: Date): Promise<void> {
  await db.update(userSessions).set({ lastSeenAt: at }).where(eq(userSessions.id, sessionId));
}

export async function deleteUserSession(db: Db, sessionId: string): Promise<void> {
  await db.delete(userSessions).where(eq(userSessions.id, sessionId));
}

/** Ends every session of a user (e.g. after a password change). */
export async function deleteUserSessions(db: Db, userId: string): Promise<void> {
  await db.delete(userSessions).where(eq(userSessions.userId, userId));
}
