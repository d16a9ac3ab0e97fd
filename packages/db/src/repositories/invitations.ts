import { and, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import { type InvitationDelivery, invitations, type MemberRole, tenantMembers, tenants, users } from '../schema.ts';
import { withSystemScope, withTenantScope } from '../tenant-scope.ts';
import type { Tenant } from './tenants.ts';
import { normalizeEmail, type User } from './users.ts';

export type Invitation = typeof invitations.$inferSelect;

/**
 * Stores an invitation (the token's SHA-256; the token itself is mailed, or shown once to the inviter).
 *
 * @example
 * await createInvitation(db, { tenantId, email, role: 'editor', tokenHash, invitedBy: userId, expiresAt });
 */
export async function createInvitation(
  db: Db,
  input: {
    tenantId: string;
    email: string;
    role: MemberRole;
    tokenHash: string;
    invitedBy: string | null;
    expiresAt: Date;
    delivery: InvitationDelivery;
  },
): Promise<Invitation> {
  const [row] = await withTenantScope(db, input.tenantId, (tx) =>
    tx
      .insert(invitations)
      .values({ id: newId(), ...input, email: normalizeEmail(input.email) })
      .returning(),
  );
  return row!;
}

/** Whether the email already belongs to a member of the tenant. */
export async function isMemberEmail(db: Db, tenantId: string, email: string): Promise<boolean> {
  const rows = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select({ userId: tenantMembers.userId })
      .from(tenantMembers)
      .innerJoin(users, eq(users.id, tenantMembers.userId))
      .where(and(eq(tenantMembers.tenantId, tenantId), eq(sql`lower(${users.email})`, normalizeEmail(email))))
      .limit(1),
  );
  return rows.length > 0;
}

/** Pending invitations (neither accepted, revoked nor expired), newest first; `before` pages on. */
export async function listPendingInvitations(
  db: Db,
  tenantId: string,
  page: { limit: number; before?: string },
  now = new Date(),
): Promise<Invitation[]> {
  return withTenantScope(db, tenantId, (tx) =>
    tx
      .select()
      .from(invitations)
      .where(
        and(
          eq(invitations.tenantId, tenantId),
          isNull(invitations.acceptedAt),
          isNull(invitations.revokedAt),
          gt(invitations.expiresAt, now),
          page.before ? lt(invitations.id, page.before) : undefined,
        ),
      )
      .orderBy(desc(invitations.id))
      .limit(page.limit),
  );
}

/** Removes an invitation whose mail could not be sent, so a failed invite leaves nothing behind. */
export async function deleteInvitation(db: Db, tenantId: string, id: string): Promise<void> {
  await withTenantScope(db, tenantId, (tx) =>
    tx.delete(invitations).where(and(eq(invitations.id, id), eq(invitations.tenantId, tenantId))),
  );
}

/** Revokes a pending invitation of the tenant; undefined when there is none with that id. */
export async function revokeInvitation(db: Db, tenantId: string, id: string): Promise<Invitation | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(invitations)
      .set({ revokedAt: sql`now()` })
      .where(
        and(
          eq(invitations.id, id),
          eq(invitations.tenantId, tenantId),
          isNull(invitations.acceptedAt),
          isNull(invitations.revokedAt),
        ),
      )
      .returning(),
  );
  return row;
}

/**
 * The invitation with this token hash and its tenant (whatever its state), or undefined. System
 * scope: the tenant is what the token tells.
 */
export async function findInvitationByToken(
  db: Db,
  tokenHash: string,
): Promise<{ invitation: Invitation; tenant: Tenant } | undefined> {
  const [row] = await withSystemScope(db, 'invitation lookup by token hash', (tx) =>
    tx
      .select({ invitation: invitations, tenant: tenants })
      .from(invitations)
      .innerJoin(tenants, eq(tenants.id, invitations.tenantId))
      .where(eq(invitations.tokenHash, tokenHash))
      .limit(1),
  );
  return row;
}

export type AcceptResult =
  | { status: 'ok'; user: User; created: boolean }
  /** Accepted, revoked or expired in the meantime. */
  | { status: 'gone' }
  /** A user with the invitation's email appeared in the meantime. */
  | { status: 'email_taken' };

/**
 * Accepts an invitation in one transaction: marks it accepted (only if still pending), creates the
 * user when `newUser` is given, and adds the membership. Accepting a mailed invitation proves the
 * mailbox: the user's email counts as verified from then on. Nothing is written unless all of it is.
 *
 * @example
 * await acceptInvitation(db, invitation, { existingUser: user });
 * await acceptInvitation(db, invitation, { newUser: { name: 'Ada', passwordHash } });
 */
export async function acceptInvitation(
  db: Db,
  invitation: Pick<Invitation, 'id' | 'tenantId'>,
  who: { existingUser: User } | { newUser: { name: string | null; passwordHash: string } },
  now = new Date(),
): Promise<AcceptResult> {
  return withTenantScope(db, invitation.tenantId, async (tx) => {
    const [accepted] = await tx
      .update(invitations)
      .set({ acceptedAt: now })
      .where(
        and(
          eq(invitations.id, invitation.id),
          eq(invitations.tenantId, invitation.tenantId),
          isNull(invitations.acceptedAt),
          isNull(invitations.revokedAt),
          gt(invitations.expiresAt, now),
        ),
      )
      .returning();
    if (!accepted) return { status: 'gone' } as const;
    let user: User | undefined;
    const verifiedAt = accepted.delivery === 'email' ? now : null;
    if ('existingUser' in who) {
      user = who.existingUser;
      if (verifiedAt && !user.emailVerifiedAt) {
        [user] = await tx.update(users).set({ emailVerifiedAt: verifiedAt }).where(eq(users.id, user.id)).returning();
        if (!user) throw new EmailTaken();
      }
    } else {
      [user] = await tx
        .insert(users)
        .values({
          id: newId(),
          email: accepted.email,
          name: who.newUser.name,
          passwordHash: who.newUser.passwordHash,
          emailVerifiedAt: verifiedAt,
        })
        .onConflictDoNothing()
        .returning();
      // Thrown to roll the acceptance back; the caller answers that the account exists.
      if (!user) throw new EmailTaken();
    }
    await tx
      .insert(tenantMembers)
      .values({ tenantId: accepted.tenantId, userId: user.id, role: accepted.role })
      .onConflictDoNothing();
    return { status: 'ok', user, created: 'newUser' in who } as const;
  }).catch((error: unknown) => {
    if (error instanceof EmailTaken) return { status: 'email_taken' } as const;
    throw error;
  });
}

class EmailTaken extends Error {}
