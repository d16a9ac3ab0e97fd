import { type AuditEvent, type Db, recordAuditEvent } from '@agentry/db';
import type { Context } from 'hono';
import type { Principal } from './auth.ts';

/** What an audit event is about: `{ type: 'agent', id }`, `{ type: 'secret', id: name }`, … */
export interface AuditTarget {
  type: string;
  id: string;
}

/**
 * Records that the caller of this request did `action` to `target`. The actor is the request's
 * signed-in dashboard user or tenant API key, or `platform` on operator routes (which have no
 * key); the tenant is the caller's, or the target itself for `tenant.*` actions. Called after the
 * change succeeded, or before refusing an attempt worth knowing about (`api_key.revoke_refused`:
 * a key reaching for more than it has); `details` must never hold secret values.
 *
 * @example
 * await audit(deps.db, c, 'secret.deleted', { type: 'secret', id: name });
 */
export async function audit(
  db: Db,
  c: Context,
  action: string,
  target: AuditTarget,
  details: Record<string, unknown> = {},
): Promise<AuditEvent> {
  const apiKeyId = c.get('apiKeyId') as string | undefined;
  const user = (c.get('principal') as Principal | undefined)?.user;
  const tenant = c.get('tenant') as { id: string } | undefined;
  const tenantId = tenant?.id ?? (target.type === 'tenant' ? target.id : undefined);
  if (!tenantId) throw new Error(`audit(${action}): no tenant on the request and the target is not a tenant`);
  return recordAuditEvent(db, {
    tenantId,
    actor: user
      ? { type: 'user', userId: user.id, email: user.email }
      : apiKeyId
        ? { type: 'api_key', apiKeyId }
        : { type: 'platform' },
    action,
    target,
    details,
  });
}
