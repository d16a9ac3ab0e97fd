import { DemoContactBodySchema } from '@agentry/contract/schemas';
import { isId } from '@agentry/db';
import { errors } from '@agentry/errors';
import { Hono } from 'hono';
import type { DemoContacts } from '../embedded/demo-contacts.ts';
import type { AuthVariables } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { doc, ref } from '../http/openapi.ts';

/** The header the demo agent's tool names its tenant with (`{{context.tenantId}}`). */
export const DEMO_TENANT_HEADER = 'x-agentry-tenant';

/**
 * `POST /demo/contacts` (embedded mode only): the built-in endpoint the seeded demo agent's tool
 * calls, so a first start shows a real tool call end to end with nothing configured. It records the
 * contact for the tenant the request names and answers like a CRM would. Unauthenticated like any
 * tool endpoint on the tenant's side; it can only add to a bounded in-memory demo list.
 */
export function demoEndpointRoutes(contacts: DemoContacts) {
  const app = new Hono();
  app.post(
    '/contacts',
    doc({
      operationId: 'saveDemoContact',
      tag: 'Demo',
      summary: 'The demo agent’s tool endpoint: records a contact for the tenant it names (embedded mode only)',
      description: `Names its tenant in \`${DEMO_TENANT_HEADER}\`; keeps at most 100 contacts per tenant, in memory.`,
      auth: 'public',
      body: { schema: DemoContactBodySchema, example: { email: 'kim@example.com', name: 'Kim' } },
      responses: { 201: { description: 'Saved', schema: ref('DemoContactSaved') } },
      errors: ['validation_failed', 'invalid_json'],
    }),
  );
  app.post('/contacts', async (c) => {
    const tenantId = c.req.header(DEMO_TENANT_HEADER) ?? '';
    if (!isId(tenantId)) {
      throw errors.validation('The demo endpoint needs its tenant', [
        { path: '', code: 'missing_header', message: `name the tenant in ${DEMO_TENANT_HEADER}` },
      ]);
    }
    const body = await readJson(c, DemoContactBodySchema, { maxBytes: 4096 });
    const name = body.name?.trim() ? body.name.trim() : null;
    const saved = contacts.record(tenantId, { email: body.email, name });
    return c.json({ saved: true, contact: saved }, 201);
  });
  return app;
}

/** `GET /v1/demo/contacts` (embedded mode only): what the demo agent saved, for the dashboard. */
export function demoContactRoutes(contacts: DemoContacts) {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.get(
    '/contacts',
    doc({
      operationId: 'listDemoContacts',
      tag: 'Demo',
      summary: 'Contacts the demo agent’s tool saved (embedded mode only; in memory, newest first)',
      auth: 'tenant',
      responses: { 200: { description: 'The contacts', schema: ref('DemoContactList') } },
      errors: [],
    }),
    // At most 100 per tenant: one page, no cursor.
    (c) => c.json({ object: 'list', data: contacts.list(c.var.tenant.id), next_cursor: null }),
  );
  return app;
}
