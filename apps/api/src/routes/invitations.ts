import { NewInvitationBody } from '@agentry/contract/schemas';
import { type Invitation, isId, isMemberEmail, listPendingInvitations, revokeInvitation } from '@agentry/db';
import { errors } from '@agentry/errors';
import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { audit } from '../http/audit.ts';
import type { AuthVariables } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { deliverInvitation } from '../http/invitation-delivery.ts';
import { doc, PAGE_QUERY, ref } from '../http/openapi.ts';
import { pageOf, readPage } from '../http/pagination.ts';

/** The public shape of an invitation (never its token: mailed, or shown once when mail is off). */
export function invitationView(invitation: Invitation) {
  return {
    object: 'invitation',
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    delivery: invitation.delivery,
    invited_by: invitation.invitedBy,
    created_at: invitation.createdAt.toISOString(),
    expires_at: invitation.expiresAt.toISOString(),
  };
}

/**
 * `POST /v1/invitations` {email, role} (owners) mails the accept link to the invited address (the
 * inviter never sees it; without SMTP, only when the operator shows links, and then the account it
 * makes stays unverified);
 * `GET /v1/invitations` the pending ones; `DELETE /v1/invitations/{id}` revokes.
 */
export function invitationRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.post(
    '/',
    doc({
      operationId: 'createInvitation',
      tag: 'Dashboard accounts',
      summary: 'Invite someone to the tenant with a role (owners); the link is mailed to them',
      description:
        'The accept link goes to the invited address by mail; the answer never holds it. On a server without SMTP whose operator set `SHOW_INVITATION_LINKS`, the answer holds `token` and `accept_url` instead (`delivery: link`) and an account made through it stays unverified.',
      auth: 'tenant',
      body: { schema: NewInvitationBody, example: { email: 'ada@example.com', role: 'editor' } },
      responses: { 201: { description: 'Invited', schema: ref('InvitationCreated') } },
      errors: ['already_a_member', 'mail_not_configured', 'mail_failed'],
    }),
    async (c) => {
      const body = await readJson(c, NewInvitationBody);
      const tenantId = c.var.tenant.id;
      if (await isMemberEmail(deps.db, tenantId, body.email)) {
        throw errors.conflict('already_a_member', `${body.email} is already a member of this tenant`);
      }
      const { invitation, shown } = await deliverInvitation(deps, c, {
        tenant: c.var.tenant,
        email: body.email,
        role: body.role,
        invitedBy: c.var.principal.user?.id ?? null,
      });
      const details = { email: invitation.email, role: invitation.role, delivery: invitation.delivery };
      await audit(deps.db, c, 'member.invited', { type: 'invitation', id: invitation.id }, details);
      if (!shown) {
        await audit(
          deps.db,
          c,
          'invitation.sent',
          { type: 'invitation', id: invitation.id },
          { email: invitation.email },
        );
        return c.json({ ...invitationView(invitation), note: `Invitation sent to ${invitation.email}.` }, 201);
      }
      return c.json(
        {
          ...invitationView(invitation),
          token: shown.token,
          accept_url: shown.acceptUrl,
          note: 'This server sends no mail: give this link to the invited person yourself (shown once). An account made through it stays unverified until its owner confirms the address.',
        },
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
