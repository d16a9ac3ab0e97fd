import { eq, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import { users } from '../schema.ts';

export type User = typeof users.$inferSelect;

/**
 * The form emails are stored and compared in: trimmed and lower-cased (the unique index is on
 * `lower(email)` as well, so two spellings can never become two users).
 *
 * @example
 * normalizeEmail(' Ada@Example.COM '); // 'ada@example.com'
 */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function findUserByEmail(db: Db, email: string): Promise<User | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(eq(sql`lower(${users.email})`, normalizeEmail(email)))
    .limit(1);
  return row;
}

export async function getUser(db: Db, userId: string): Promise<User | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, userId));
  return row;
}

/**
 * Creates a user (the password already hashed by the caller); undefined when the email is taken,
 * so a race between two sign-ups ends with one user and one clear refusal.
 *
 * @example
 * const user = await createUser(db, { email: 'ada@example.com', name: 'Ada', passwordHash });
 */
export async function createUser(
  db: Db,
  input: { email: string; name?: string | null; passwordHash: string },
): Promise<User | undefined> {
  const [row] = await db
    .insert(users)
    .values({
      id: newId(),
      email: normalizeEmail(input.email),
      name: input.name ?? null,
      passwordHash: input.passwordHash,
    })
    .onConflictDoNothing()
    .returning();
  return row;
}
