import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import { type AuditActorType, apiKeys, auditEvents } from '../schema.ts';
import { withTenantScope } from '../tenant-scope.ts';

export type AuditEvent = typeof auditEvents.$inferSelect;

/** One audited change, as the API layer describes it. */
export interface NewAuditEvent {
  tenantId: string;
  /** A dashboard user is recorded by id, with the email it had at the time in `actorPrefix`. */
  actor: { type: AuditActorType; apiKeyId?: string; userId?: string; email?: string };
  action: string;
  target: { type: string; id: string };
  /** Names, versions, flags: never secret values. */
  details?: Record<string, unknown>;
}

/**
 * Appends an audit event. The acting key's prefix is copied in the same statement, so the log
 * still names the key after it is revoked or deleted.
 *
 * @example
 * await recordAuditEvent(db, {
 *   tenantId, actor: { type: 'api_key', apiKeyId }, action: 'secret.put',
 *   target: { type: 'secret', id: 'CRM_TOKEN' }, details: { created: true },
 * });
 */
export async function recordAuditEvent(db: Db, event: NewAuditEvent): Promise<AuditEvent> {
  const keyId = event.actor.apiKeyId;
  const [row] = await withTenantScope(db, event.tenantId, (tx) =>
    tx
      .insert(auditEvents)
      .values({
        id: newId(),
        tenantId: event.tenantId,
        actorType: event.actor.type,
        actorId: keyId ?? event.actor.userId ?? null,
        actorPrefix: keyId
          ? sql`(select ${apiKeys.prefix} from ${apiKeys} where ${apiKeys.id} = ${keyId} and ${apiKeys.tenantId} = ${event.tenantId})`
          : (event.actor.email ?? null),
        action: event.action,
        targetType: event.target.type,
        targetId: event.target.id,
        details: event.details ?? {},
      })
      .returning(),
  );
  return row!;
}

/**
 * The tenant's audit events, newest first; `before` is the last id of the previous page.
 *
 * @example
 * const rows = await listAuditEvents(db, tenantId, { limit: 21 });
 */
export async function listAuditEvents(
  db: Db,
  tenantId: string,
  page: { limit: number; before?: string },
): Promise<AuditEvent[]> {
  return withTenantScope(db, tenantId, (tx) =>
    tx
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, tenantId), page.before ? lt(auditEvents.id, page.before) : undefined))
      .orderBy(desc(auditEvents.id))
      .limit(page.limit),
  );
}
