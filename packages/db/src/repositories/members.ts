import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { type MemberRole, tenantMembers, tenants as tenantsTable, users } from '../schema.ts';
import { withSystemScope, withTenantScope } from '../tenant-scope.ts';
import type { Tenant } from './tenants.ts';

export type Member = typeof tenantMembers.$inferSelect;
export type MemberWithUser = Member & { email: string; name: string | null; emailVerified: boolean };

/** A user's membership of one tenant with the tenant row, or undefined when not a member. */
export async function getMembership(
  db: Db,
  tenantId: string,
  userId: string,
): Promise<{ role: MemberRole; tenant: Tenant } | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select({ role: tenantMembers.role, tenant: tenantsTable })
      .from(tenantMembers)
      .innerJoin(tenantsTable, eq(tenantsTable.id, tenantMembers.tenantId))
      .where(and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.userId, userId))),
  );
  return row;
}

/**
 * The active tenants a user belongs to, oldest membership first (what a session offers to pick
 * from). System scope: a user's memberships span tenants by nature.
 */
export async function listUserMemberships(
  db: Db,
  userId: string,
): Promise<Array<{ tenantId: string; tenantName: string; role: MemberRole }>> {
  return withSystemScope(db, "a dashboard user's memberships across tenants", (tx) =>
    tx
      .select({ tenantId: tenantMembers.tenantId, tenantName: tenantsTable.name, role: tenantMembers.role })
      .from(tenantMembers)
      .innerJoin(tenantsTable, eq(tenantsTable.id, tenantMembers.tenantId))
      .where(and(eq(tenantMembers.userId, userId), eq(tenantsTable.status, 'active')))
      .orderBy(asc(tenantMembers.createdAt), asc(tenantMembers.tenantId)),
  );
}

/** The columns of a member with its user's email and name. */
const MEMBER_WITH_USER = {
  tenantId: tenantMembers.tenantId,
  userId: tenantMembers.userId,
  role: tenantMembers.role,
  available: tenantMembers.available,
  createdAt: tenantMembers.createdAt,
  email: users.email,
  name: users.name,
  emailVerified: sql<boolean>`${users.emailVerifiedAt} is not null`.mapWith(Boolean),
};

/**
 * A tenant's members with their email and name, by user id; `after` is the last user id of the
 * previous page.
 *
 * @example
 * const rows = await listMembers(db, tenantId, { limit: 21 });
 */
export async function listMembers(
  db: Db,
  tenantId: string,
  page: { limit: number; after?: string },
): Promise<MemberWithUser[]> {
  return withTenantScope(db, tenantId, (tx) =>
    tx
      .select(MEMBER_WITH_USER)
      .from(tenantMembers)
      .innerJoin(users, eq(users.id, tenantMembers.userId))
      .where(and(eq(tenantMembers.tenantId, tenantId), page.after ? gt(tenantMembers.userId, page.after) : undefined))
      .orderBy(asc(tenantMembers.userId))
      .limit(page.limit),
  );
}

/** One member of a tenant with email and name, or undefined. */
export async function getMember(db: Db, tenantId: string, userId: string): Promise<MemberWithUser | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select(MEMBER_WITH_USER)
      .from(tenantMembers)
      .innerJoin(users, eq(users.id, tenantMembers.userId))
      .where(and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.userId, userId))),
  );
  return row;
}

/** Adds a member; an existing membership is kept as it is (re-joining never changes a role). */
export async function addMember(db: Db, tenantId: string, userId: string, role: MemberRole): Promise<void> {
  await withTenantScope(db, tenantId, (tx) =>
    tx.insert(tenantMembers).values({ tenantId, userId, role }).onConflictDoNothing(),
  );
}

export type MemberChange =
  | { status: 'ok'; before: MemberRole; member: Member | undefined }
  | { status: 'not_found' }
  | { status: 'last_owner' };

/**
 * Changes a member's role (`role`) or removes the member (`null`), refusing to leave a tenant
 * without an owner. The tenant's owner rows are locked first, so two owners demoting each other
 * at once cannot both succeed.
 *
 * @example
 * const result = await changeMember(db, tenantId, userId, 'viewer');
 * if (result.status === 'last_owner') throw errors.conflict('last_owner', '…');
 */
export async function changeMember(
  db: Db,
  tenantId: string,
  userId: string,
  role: MemberRole | null,
): Promise<MemberChange> {
  return withTenantScope(db, tenantId, async (tx) => {
    const owners = await tx
      .select({ userId: tenantMembers.userId })
      .from(tenantMembers)
      .where(and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.role, 'owner')))
      .for('update');
    const [current] = await tx
      .select()
      .from(tenantMembers)
      .where(and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.userId, userId)))
      .for('update');
    if (!current) return { status: 'not_found' } as const;
    const losesOwner = current.role === 'owner' && role !== 'owner';
    if (losesOwner && owners.length <= 1) return { status: 'last_owner' } as const;
    const where = and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.userId, userId));
    if (role === null) {
      await tx.delete(tenantMembers).where(where);
      return { status: 'ok', before: current.role, member: undefined } as const;
    }
    const [member] = await tx.update(tenantMembers).set({ role }).where(where).returning();
    return { status: 'ok', before: current.role, member } as const;
  });
}
