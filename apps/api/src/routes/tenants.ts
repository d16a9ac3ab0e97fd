import { createTenantWithKey, deleteTenant, getTenant, isId, type Tenant, updateTenant } from '@agentry/db';
import { errors } from '@agentry/errors';
import { invalidAllowlistEntries } from '@agentry/http-tools';
import { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { audit } from '../http/audit.ts';
import { generateSecretKey, requirePlatformAdmin } from '../http/auth.ts';
import { readJson } from '../http/body.ts';

const CreateTenant = z.strictObject({ name: z.string().trim().min(1).max(200) });

/** Platform operator routes. */
export function tenantRoutes(deps: ApiDeps) {
  const app = new Hono();
  app.use('*', requirePlatformAdmin(deps.platformAdminToken));
  app.post('/', async (c) => {
    const body = await readJson(c, CreateTenant);
    const key = generateSecretKey();
    const { tenant, apiKey } = await createTenantWithKey(deps.db, { name: body.name, key });
    await audit(
      deps.db,
      c,
      'tenant.created',
      { type: 'tenant', id: tenant.id },
      { name: tenant.name, api_key_prefix: apiKey.prefix },
    );
    return c.json(
      {
        ...tenantView(tenant),
        api_key: { id: apiKey.id, key: key.key, prefix: apiKey.prefix, note: 'Shown once: store it now.' },
      },
      201,
    );
  });

  const load = async (id: string) => {
    const tenant = isId(id) ? await getTenant(deps.db, id) : undefined;
    if (!tenant) throw errors.notFound('tenant', id);
    return tenant;
  };

  app.get('/:id', async (c) => c.json(tenantView(await load(c.req.param('id')))));

  // Suspend or reactivate, the tenant's private-network allowlist, quotas and request rate.
  app.patch('/:id', async (c) => {
    const tenant = await load(c.req.param('id'));
    const body = await readJson(c, UpdateTenant);
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
    await audit(deps.db, c, 'tenant.updated', { type: 'tenant', id: tenant.id }, body);
    return c.json(tenantView(updated!));
  });

  app.delete('/:id', async (c) => {
    const tenant = await load(c.req.param('id'));
    await deleteTenant(deps.db, tenant.id);
    return c.body(null, 204);
  });
  return app;
}

const UpdateTenant = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  status: z.enum(['active', 'suspended']).optional(),
  egress_allowlist: z.array(z.string().min(1).max(253)).max(100).optional(),
  daily_run_limit: z.number().int().min(0).nullable().optional(),
  daily_token_limit: z.number().int().min(0).nullable().optional(),
  requests_per_minute: z.number().int().min(1).max(1_000_000).nullable().optional(),
});

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
