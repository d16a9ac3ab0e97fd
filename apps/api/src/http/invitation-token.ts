import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'hono';

/** Invitations may be accepted for 7 days. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** A new invitation token (`inv_` + 256 random bits); only its SHA-256 is stored. */
export function newInvitationToken(): { token: string; hash: string } {
  const token = `inv_${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashInvitationToken(token) };
}

export function hashInvitationToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Where the invited person accepts: the dashboard's accept page on the host the inviter called
 * (`X-Forwarded-Proto` says whether a proxy in front terminated https).
 *
 * @example
 * acceptUrl(c, token); // 'https://agentry.example.com/dashboard/#/accept-invitation?token=inv_…'
 */
export function acceptUrl(c: Context, token: string): string {
  const url = new URL(c.req.url);
  const proto = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  if (proto === 'https' || proto === 'http') url.protocol = `${proto}:`;
  return `${url.origin}/dashboard/#/accept-invitation?token=${encodeURIComponent(token)}`;
}
