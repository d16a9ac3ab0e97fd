// The verified end user's values for `{{user.…}}`: sealed when a message's run is written, opened
// by the worker for the run's tools. They never go anywhere else (prompt, transcript, events, logs).
import { type CompiledAgent, type EndUserValues, endUserValues } from '@agentry/config';
import type { SealedSecret, SecretBox } from '@agentry/secrets';

/** What a verified `X-End-User-Token` vouches for: its subject, its claims, the token, its `exp` (Unix seconds). */
export interface VerifiedEndUser {
  sub: string;
  claims: Record<string, unknown>;
  token: string;
  exp: number;
}

/** The associated data a run's end-user values are sealed with: they open only for this tenant and conversation. */
export function endUserSealContext(tenantId: string, conversationId: string): string {
  return `${tenantId}/conversations/${conversationId}/end-user`;
}

/**
 * Seals what the run's tools may read of the verified end user (`runs.end_user`): the agent's
 * declared claims and, with `forward_token`, the token. Null when the agent reads none, there is no
 * verified user, or no SecretBox (then tools that need the user ask to sign in).
 *
 * @example
 * const endUser = sealEndUser(box, tenantId, conversationId, agent, principal.endUser);
 */
export function sealEndUser(
  box: SecretBox | undefined,
  tenantId: string,
  conversationId: string,
  agent: Pick<CompiledAgent, 'endUser'>,
  verified: VerifiedEndUser | undefined,
): string | null {
  if (!box || !verified) return null;
  const values = endUserValues(agent.endUser, { ...verified.claims, exp: verified.exp }, verified.token);
  if (!values) return null;
  return JSON.stringify(box.seal(JSON.stringify(values), endUserSealContext(tenantId, conversationId)));
}

/**
 * Opens a run's sealed end-user values for its tools. Undefined when there are none, or they cannot
 * be opened (no box, a key no longer loaded, moved to another conversation): tools that need them
 * then ask the user to sign in, as for an anonymous visitor.
 *
 * @example
 * const user = openEndUser(box, run); // { claims: { email: 'a@b.c' }, expiresAt: 1767225600 }
 */
export function openEndUser(
  box: SecretBox | undefined,
  run: { tenantId: string; conversationId: string; endUser: string | null },
): EndUserValues | undefined {
  if (!box || !run.endUser) return undefined;
  try {
    const sealed = JSON.parse(run.endUser) as SealedSecret;
    const values = JSON.parse(box.open(sealed, endUserSealContext(run.tenantId, run.conversationId))) as EndUserValues;
    return typeof values.expiresAt === 'number' && values.claims && typeof values.claims === 'object'
      ? values
      : undefined;
  } catch {
    return undefined;
  }
}
