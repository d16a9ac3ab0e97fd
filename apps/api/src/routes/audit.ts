import { type AuditEvent, listAuditEvents } from '@agentry/db';
import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import type { AuthVariables } from '../http/auth.ts';
import { doc, PAGE_QUERY, ref } from '../http/openapi.ts';
import { pageOf, readPage } from '../http/pagination.ts';

/**
 * The public shape of an audit event.
 *
 * @example
 * auditEventView(row); // { id, object: 'audit_event', action: 'secret.put', actor: { type: 'api_key', … }, … }
 */
export function auditEventView(event: AuditEvent) {
  return {
    id: event.id,
    object: 'audit_event',
    action: event.action,
    actor:
      event.actorType === 'user'
        ? { type: event.actorType, user_id: event.actorId, email: event.actorPrefix }
        : { type: event.actorType, api_key_id: event.actorId, api_key_prefix: event.actorPrefix },
    target: { type: event.targetType, id: event.targetId },
    details: event.details,
    created_at: event.createdAt.toISOString(),
  };
}

/** `GET /v1/audit-events`: the tenant's configuration changes, newest first, cursor-paginated. */
export function auditRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.get(
    '/',
    doc({
      operationId: 'listAuditEvents',
      tag: 'Audit',
      summary: 'Who changed what, newest first',
      auth: 'tenant',
      query: PAGE_QUERY,
      responses: { 200: { description: 'A page of audit events', schema: ref('AuditEventList') } },
      errors: ['invalid_query'],
    }),
  );
  app.get('/', async (c) => {
    const page = readPage(c);
    const rows = await listAuditEvents(deps.db, c.var.tenant.id, { ...page, limit: page.limit + 1 });
    return c.json(pageOf(rows, page, auditEventView));
  });
  return app;
}
