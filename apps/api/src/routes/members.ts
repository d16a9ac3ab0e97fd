import { ChangeRoleBody } from '@agentry/contract/schemas';
import { changeMember, getMember, isId, listMembers, type MemberWithUser } from '@agentry/db';
import { errors } from '@agentry/errors';
import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { audit } from '../http/audit.ts';
import type { AuthVariables } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { doc, PAGE_QUERY, type ParamDoc, ref } from '../http/openapi.ts';
import { pageOf, readPage } from '../http/pagination.ts';

const userParam: Record<string, ParamDoc> = {
  userId: { description: 'The member’s user id', resource: 'member', schema: { type: 'string', format: 'uuid' } },
};

/** The public shape of a tenant member. */
export function memberView(member: MemberWithUser) {
  return {
    object: 'member',
    user_id: member.userId,
    email: member.email,
    name: member.name,
    email_verified: member.emailVerified,
    role: member.role,
    created_at: member.createdAt.toISOString(),
  };
}

function lastOwner() {
  return errors.conflict('last_owner', 'A tenant keeps at least one owner: make someone else owner first');
}

/**
 * `GET /v1/members`, `PATCH /v1/members/{user_id}` {role} (owners), `DELETE /v1/members/{user_id}`
 * (owners, or a member leaving). The last owner can be neither demoted nor removed (409).
 */
export function memberRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.get(
    '/',
    doc({
      operationId: 'listMembers',
      tag: 'Dashboard accounts',
      summary: 'The tenant’s members and their roles',
      auth: 'tenant',
      query: PAGE_QUERY,
      responses: { 200: { description: 'A page of members', schema: ref('MemberList') } },
      errors: ['invalid_query'],
    }),
    async (c) => {
      const page = readPage(c);
      // Listed by user id (oldest account first); the cursor is the last user id shown.
      const rows = await listMembers(deps.db, c.var.tenant.id, {
        limit: page.limit + 1,
        ...(page.before ? { after: page.before } : {}),
      });
      const withIds = rows.map((m) => ({ ...m, id: m.userId }));
      return c.json(pageOf(withIds, page, memberView));
    },
  );

  app.patch(
    '/:userId',
    doc({
      operationId: 'updateMember',
      tag: 'Dashboard accounts',
      summary: 'Change a member’s role (owners)',
      auth: 'tenant',
      path: userParam,
      body: { schema: ChangeRoleBody, example: { role: 'editor' } },
      responses: { 200: { description: 'The member', schema: ref('Member') } },
      errors: ['member_not_found', 'last_owner'],
    }),
    async (c) => {
      const userId = c.req.param('userId');
      const body = await readJson(c, ChangeRoleBody);
      if (!isId(userId)) throw errors.notFound('member', userId);
      const result = await changeMember(deps.db, c.var.tenant.id, userId, body.role);
      if (result.status === 'not_found') throw errors.notFound('member', userId);
      if (result.status === 'last_owner') throw lastOwner();
      if (result.before !== body.role) {
        await audit(
          deps.db,
          c,
          'member.role_changed',
          { type: 'user', id: userId },
          { from: result.before, to: body.role },
        );
      }
      const member = await getMember(deps.db, c.var.tenant.id, userId);
      return c.json(memberView(member!));
    },
  );

  app.delete(
    '/:userId',
    doc({
      operationId: 'removeMember',
      tag: 'Dashboard accounts',
      summary: 'Remove a member (owners), or leave the tenant (yourself)',
      auth: 'tenant',
      path: userParam,
      responses: { 204: { description: 'Removed' } },
      errors: ['member_not_found', 'last_owner'],
    }),
    async (c) => {
      const userId = c.req.param('userId');
      if (!isId(userId)) throw errors.notFound('member', userId);
      const result = await changeMember(deps.db, c.var.tenant.id, userId, null);
      if (result.status === 'not_found') throw errors.notFound('member', userId);
      if (result.status === 'last_owner') throw lastOwner();
      await audit(deps.db, c, 'member.removed', { type: 'user', id: userId }, { role: result.before });
      return c.body(null, 204);
    },
  );
  return app;
}
