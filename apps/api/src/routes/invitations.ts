import {
  createInvitation,
  type Invitation,
  isId,
  isMemberEmail,
  listPendingInvitations,
  revokeInvitation,
} from '@agentry/db';
import { errors } from '@agentry/errors';
import { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { audit } from '../http/audit.ts';
import type { AuthVariables } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { acceptUrl, INVITATION_TTL_MS, newInvitationToken } from '../http/invitation-token.ts';
import { doc, PAGE_QUERY, ref } from '../http/openapi.ts';
import '../http/openapi-accounts.ts';
import { pageOf, readPage } from '../http/pagination.ts';

const NewInvitation = z.strictObject({
  email: z.email().max(320),
  role: z.enum(['owner', 'editor', 'viewer']),
});

/** The public shape of an invitation (never its token, which only the creating answer shows). */
export function invitationView(invitation: Invitation) {
  return {
    object: 'invitation',
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    invited_by: invitation.invitedBy,
    created_at: invitation.createdAt.toISOString(),
    expires_at: invitation.expiresAt.toISOString(),
  };
}

/**
 * `POST /v1/invitations` {email, role} (owners) → the token once and the accept URL;
 * `GET /v1/invitations` the pending ones; `DELETE /v1/invitations/{id}` revokes.
 */
export function invitationRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.post(
    '/',
    doc({
      operationId: 'createInvitation',
      tag: 'Dashboard accounts',
      summary: 'Invite someone to the tenant with a role (owners); the token is shown once',
      auth: 'tenant',
      body: { schema: NewInvitation, example: { email: 'ada@example.com', role: 'editor' } },
      responses: { 201: { description: 'Invited', schema: ref('InvitationCreated') } },
      errors: ['already_a_member'],
    }),
    async (c) => {
      const body = await readJson(c, NewInvitation);
      const tenantId = c.var.tenant.id;
      if (await isMemberEmail(deps.db, tenantId, body.email)) {
        throw errors.conflict('already_a_member', `${body.email} is already a member of this tenant`);
      }
      const { token, hash } = newInvitationToken();
      const invitation = await createInvitation(deps.db, {
        tenantId,
        email: body.email,
        role: body.role,
        tokenHash: hash,
        invitedBy: c.var.principal.user?.id ?? null,
        expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
      });
      await audit(
        deps.db,
        c,
        'member.invited',
        { type: 'invitation', id: invitation.id },
        { email: invitation.email, role: invitation.role },
      );
      return c.json(
        { ...invitationView(invitation), token, accept_url: acceptUrl(c, token), note: 'Shown once: send it now.' },
        201,
      );
    },
  );

  app.get(
    '/',
    doc({
      operationId: 'listInvitations',
      tag: 'Dashboard accounts',
      summary: 'Pending invitations (never their tokens)',
      auth: 'tenant',
      query: PAGE_QUERY,
      responses: { 200: { description: 'A page of pending invitations', schema: ref('InvitationList') } },
      errors: ['invalid_query'],
    }),
    async (c) => {
      const page = readPage(c);
      const rows = await listPendingInvitations(deps.db, c.var.tenant.id, { ...page, limit: page.limit + 1 });
      return c.json(pageOf(rows, page, invitationView));
    },
  );

  app.delete(
    '/:id',
    doc({
      operationId: 'revokeInvitation',
      tag: 'Dashboard accounts',
      summary: 'Revoke a pending invitation (owners)',
      auth: 'tenant',
      path: {
        id: { description: 'Invitation id', resource: 'invitation', schema: { type: 'string', format: 'uuid' } },
      },
      responses: { 204: { description: 'Revoked' } },
      errors: ['invitation_not_found'],
    }),
    async (c) => {
      const id = c.req.param('id');
      const revoked = isId(id) ? await revokeInvitation(deps.db, c.var.tenant.id, id) : undefined;
      if (!revoked) throw errors.notFound('invitation', id);
      await audit(
        deps.db,
        c,
        'invitation.revoked',
        { type: 'invitation', id: revoked.id },
        { email: revoked.email, role: revoked.role },
      );
      return c.body(null, 204);
    },
  );
  return app;
}
