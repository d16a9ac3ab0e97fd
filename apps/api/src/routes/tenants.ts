import { createTenantWithKey } from '@agentry/db';
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
        id: tenant.id,
        object: 'tenant',
        name: tenant.name,
        status: tenant.status,
        created_at: tenant.createdAt.toISOString(),
        api_key: { id: apiKey.id, key: key.key, prefix: apiKey.prefix, note: 'Shown once: store it now.' },
      },
      201,
    );
  });
  return app;
}
