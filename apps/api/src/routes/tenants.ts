import { CreateTenantBody, UpdateTenantBody } from '@agentry/contract/schemas';
import {
  createTenantWithKey,
  deleteTenant,
  getTenant,
  isId,
  recordAuditEvent,
  type Tenant,
  updateTenant,
} from '@agentry/db';
import { errors } from '@agentry/errors';
import { invalidAllowlistEntries } from '@agentry/http-tools';
import { type Context, Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { audit } from '../http/audit.ts';
import { generateSecretKey, requirePlatformAdmin } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { assertCanInvite, deliverInvitation } from '../http/invitation-delivery.ts';
import { doc, type ParamDoc, ref } from '../http/openapi.ts';

/** Platform operator routes. */
export function tenantRoutes(deps: ApiDeps) {
  const app = new Hono();
  app.use('*', requirePlatformAdmin(deps.platformAdminToken));

  // The first owner of a new tenant: an invitation mailed to them (or, without mail and with the
  // operator's SHOW_INVITATION_LINKS, shown in this answer only).
  const inviteOwner = async (c: Context, tenant: Tenant, email: string) => {
    const { invitation, shown } = await deliverInvitation(deps, c, { tenant, email, role: 'owner', invitedBy: null });
    const event = { tenantId: tenant.id, actor: { type: 'platform' } as const };
    const target = { type: 'invitation', id: invitation.id };
    await recordAuditEvent(deps.db, {
      ...event,
      action: 'member.invited',
      target,
      details: { email: invitation.email, role: 'owner', delivery: invitation.delivery },
    });
    if (!shown) {
      await recordAuditEvent(deps.db, {
        ...event,
        action: 'invitation.sent',
        target,
        details: { email: invitation.email },
      });
    }
    return {
      id: invitation.id,
      email: invitation.email,
      delivery: invitation.delivery,
      ...(shown ? { token: shown.token, accept_url: shown.acceptUrl } : {}),
      expires_at: invitation.expiresAt.toISOString(),
    };
  };
  const tenantId: Record<string, ParamDoc> = { id: { description: 'The tenant id', resource: 'tenant' } };
  app.post(
    '/',
    doc({
      operationId: 'createTenant',
      tag: 'Tenants (operator)',
      summary: 'Create a tenant with its first secret key (and, with `owner_email`, a mailed owner invitation)',
      auth: 'platform',
      body: { schema: CreateTenantBody, example: { name: 'Acme', owner_email: 'owner@acme.example' } },
      responses: { 201: { description: 'The tenant; its key is shown once', schema: ref('TenantCreated') } },
      errors: ['mail_not_configured', 'mail_failed'],
    }),
  );
  app.post('/', async (c) => {
    const body = await readJson(c, CreateTenantBody);
    // Refused before anything is written when the owner could not be reached.
    if (body.owner_email) assertCanInvite(deps);
    const key = generateSecretKey();
    const { tenant, apiKey } = await createTenantWithKey(deps.db, { name: body.name, key });
    await audit(
      deps.db,
      c,
      'tenant.created',
      { type: 'tenant', id: tenant.id },
      { name: tenant.name, api_key_prefix: apiKey.prefix },
    );
    const ownerInvitation = body.owner_email
      ? await inviteOwner(c, tenant, body.owner_email).catch(async (error: unknown) => {
          // The mail server refused: the tenant goes too, so a retry starts from nothing.
          await deleteTenant(deps.db, tenant.id);
          throw error;
        })
      : undefined;
    return c.json(
      {
        ...tenantView(tenant),
        api_key: { id: apiKey.id, key: key.key, prefix: apiKey.prefix, note: 'Shown once: store it now.' },
        ...(ownerInvitation ? { owner_invitation: ownerInvitation } : {}),
      },
      201,
    );
  });

  const load = async (id: string) => {
    const tenant = isId(id) ? await getTenant(deps.db, id) : undefined;
    if (!tenant) throw errors.notFound('tenant', id);
    return tenant;
  };

  app.get(
    '/:id',
    doc({
      operationId: 'getTenant',
      tag: 'Tenants (operator)',
      summary: 'A tenant',
      auth: 'platform',
      path: tenantId,
      responses: { 200: { description: 'The tenant', schema: ref('Tenant') } },
      errors: ['tenant_not_found'],
    }),
  );
  app.get('/:id', async (c) => c.json(tenantView(await load(c.req.param('id')))));

  // Suspend or reactivate, the tenant's private-network allowlist, quotas and request rate.
  app.patch(
    '/:id',
    doc({
      operationId: 'updateTenant',
      tag: 'Tenants (operator)',
      summary: 'Suspend or reactivate a tenant; set its egress allowlist, quotas and request rate',
      auth: 'platform',
      path: tenantId,
      body: { schema: UpdateTenantBody, example: { status: 'suspended', requests_per_minute: 600 } },
      responses: { 200: { description: 'The tenant', schema: ref('Tenant') } },
      errors: ['tenant_not_found'],
    }),
  );
  app.patch('/:id', async (c) => {
    const tenant = await load(c.req.param('id'));
    const body = await readJson(c, UpdateTenantBody);
    if (body.egress_allowlist) {
      const invalid = invalidAllowlistEntries(body.egress_allowlist);
      if (invalid.length > 0) {
        throw errors.validation(
          'The egress allowlist is not valid',
          invalid.map((entry) => ({
            path: `/egress_allowlist/${body.egress_allowlist!.indexOf(entry)}`,
            code: 'invalid_allowlist_entry',
            message: `\`${entry}\` is not a host, *.domain, IP or CIDR`,
          })),
        );
      }
    }
    const updated = await updateTenant(deps.db, tenant.id, {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.status !== undefined ? { status: body.status } : {}),
      ...(body.egress_allowlist !== undefined ? { egressAllowlist: body.egress_allowlist } : {}),
      ...(body.daily_run_limit !== undefined ? { dailyRunLimit: body.daily_run_limit } : {}),
      ...(body.daily_token_limit !== undefined ? { dailyTokenLimit: body.daily_token_limit } : {}),
      ...(body.requests_per_minute !== undefined ? { requestsPerMinute: body.requests_per_minute } : {}),
    });
    // This process sees the change now; the others when the change's notification reaches them.
    deps.apiKeyCache?.invalidateTenant(tenant.id);
    await audit(deps.db, c, 'tenant.updated', { type: 'tenant', id: tenant.id }, body);
    return c.json(tenantView(updated!));
  });

  app.delete(
    '/:id',
    doc({
      operationId: 'deleteTenant',
      tag: 'Tenants (operator)',
      summary: 'Delete a tenant and everything it owns',
      auth: 'platform',
      path: tenantId,
      responses: { 204: { description: 'Deleted' } },
      errors: ['tenant_not_found'],
    }),
  );
  app.delete('/:id', async (c) => {
    const tenant = await load(c.req.param('id'));
    await deleteTenant(deps.db, tenant.id);
    deps.apiKeyCache?.invalidateTenant(tenant.id);
    return c.body(null, 204);
  });
  return app;
}

function tenantView(tenant: Tenant) {
  return {
    id: tenant.id,
    object: 'tenant',
    name: tenant.name,
    status: tenant.status,
    egress_allowlist: tenant.egressAllowlist,
    daily_run_limit: tenant.dailyRunLimit,
    daily_token_limit: tenant.dailyTokenLimit,
    requests_per_minute: tenant.requestsPerMinute,
    created_at: tenant.createdAt.toISOString(),
  };
}
