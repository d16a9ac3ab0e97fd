import { createInvitation, deleteInvitation, type Invitation, type MemberRole } from '@agentry/db';
import { type AppError, errors } from '@agentry/errors';
import type { Context } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { dashboardLink, invitationMail } from '../mail/account-mails.ts';
import { acceptUrl, INVITATION_TTL_MS, newInvitationToken } from './invitation-token.ts';

/** A stored invitation and, only when the operator lets inviters see links, its token and link. */
export interface DeliveredInvitation {
  invitation: Invitation;
  /** Only with `delivery: 'link'` (no SMTP, SHOW_INVITATION_LINKS on). */
  shown?: { token: string; acceptUrl: string };
}

/** 503 `mail_not_configured`: nothing can reach the invitee, and the operator shows no links. */
export function mailNotConfigured(): AppError {
  return errors.of({
    code: 'mail_not_configured',
    message: 'This server sends no mail (SMTP_URL is not set), so it cannot reach the invited person',
    category: 'system',
    retryable: false,
  });
}

/** 502 `mail_failed`: the SMTP server did not take the message; nothing was kept. */
export function mailFailed(cause: unknown): AppError {
  return errors.upstream('mail_failed', 'The mail server did not accept the message; try again', {
    retryable: true,
    cause,
  });
}

/**
 * Throws `mail_not_configured` unless an invitation can reach its invitee (by mail, or by a link
 * the operator lets inviters see): checked before anything is written.
 */
export function assertCanInvite(deps: ApiDeps): void {
  if (!deps.mail && !deps.showInvitationLinks) throw mailNotConfigured();
}

/**
 * Creates an invitation and gets its token to the invited address: by mail when SMTP is set (the
 * inviter never sees it, so accepting proves the mailbox), else shown to the inviter when the
 * operator allows it (`delivery: 'link'`: an account it creates stays unverified). A mail the
 * server refuses removes the invitation again (502 `mail_failed`).
 *
 * @example
 * const { invitation, shown } = await deliverInvitation(deps, c, { tenant, email, role: 'editor', invitedBy });
 */
export async function deliverInvitation(
  deps: ApiDeps,
  c: Context,
  input: { tenant: { id: string; name: string }; email: string; role: MemberRole; invitedBy: string | null },
): Promise<DeliveredInvitation> {
  assertCanInvite(deps);
  const { token, hash } = newInvitationToken();
  const invitation = await createInvitation(deps.db, {
    tenantId: input.tenant.id,
    email: input.email,
    role: input.role,
    tokenHash: hash,
    invitedBy: input.invitedBy,
    expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
    delivery: deps.mail ? 'email' : 'link',
  });
  if (!deps.mail) return { invitation, shown: { token, acceptUrl: acceptUrl(c, token) } };
  const message = invitationMail({
    to: invitation.email,
    tenantName: input.tenant.name,
    role: invitation.role,
    link: dashboardLink(deps.mail.publicUrl, 'accept-invitation', token),
    expiresAt: invitation.expiresAt,
  });
  try {
    await deps.mail.mailer.send(message);
  } catch (error) {
    await deleteInvitation(deps.db, invitation.tenantId, invitation.id);
    throw mailFailed(error);
  }
  return { invitation };
}
