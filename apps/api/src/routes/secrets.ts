import { PutSecretBody } from '@agentry/contract/schemas';
import { deleteSecret, listSecrets, putSecret } from '@agentry/db';
import { errors } from '@agentry/errors';
import { secretContext, secretsNotConfigured } from '@agentry/run-service';
import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { audit } from '../http/audit.ts';
import type { AuthVariables } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { doc, type ParamDoc, ref } from '../http/openapi.ts';

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const secretParam: Record<string, ParamDoc> = {
  name: {
    description: 'The secret’s name, as used in `{{secrets.NAME}}`',
    resource: 'secret',
    schema: { type: 'string', pattern: NAME.source },
  },
};
function secretName(raw: string): string {
  if (!NAME.test(raw)) {
    throw errors.badRequest(
      'invalid_secret_name',
      'A secret name starts with a letter or _ and has up to 64 letters, digits and _ (it is used as {{secrets.NAME}})',
    );
  }
  return raw;
}

/** Write-only tenant secrets: values go in, only names and dates come out. */
export function secretRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.use('*', async (_c, next) => {
    if (!deps.secretBox) throw secretsNotConfigured();
    await next();
  });

  app.get(
    '/',
    doc({
      operationId: 'listSecrets',
      tag: 'Secrets',
      summary: 'The tenant’s secret names (never values)',
      auth: 'tenant',
      responses: { 200: { description: 'All secrets (one page)', schema: ref('SecretList') } },
      errors: ['secrets_not_configured'],
    }),
  );
  app.get('/', async (c) => {
    const rows = await listSecrets(deps.db, c.var.tenant.id);
    return c.json({
      object: 'list',
      data: rows.map((r) => ({
        object: 'secret',
        name: r.name,
        created_at: r.createdAt.toISOString(),
        updated_at: r.updatedAt.toISOString(),
      })),
      next_cursor: null,
    });
  });

  app.put(
    '/:name',
    doc({
      operationId: 'putSecret',
      tag: 'Secrets',
      summary: 'Set a secret (write-only: the value is sealed and never shown again)',
      auth: 'tenant',
      path: secretParam,
      body: { schema: PutSecretBody, example: { value: 'crm-token-…' } },
      responses: {
        200: { description: 'Replaced', schema: ref('SecretPut') },
        201: { description: 'Created', schema: ref('SecretPut') },
      },
      errors: ['invalid_secret_name', 'secrets_not_configured'],
    }),
  );
  app.put('/:name', async (c) => {
    const name = secretName(c.req.param('name'));
    const { value } = await readJson(c, PutSecretBody);
    const tenantId = c.var.tenant.id;
    const { created } = await putSecret(
      deps.db,
      tenantId,
      name,
      deps.secretBox!.seal(value, secretContext(tenantId, name)),
    );
    await audit(deps.db, c, 'secret.put', { type: 'secret', id: name }, { created });
    return c.json({ object: 'secret', name, created }, created ? 201 : 200);
  });

  app.delete(
    '/:name',
    doc({
      operationId: 'deleteSecret',
      tag: 'Secrets',
      summary: 'Delete a secret',
      auth: 'tenant',
      path: secretParam,
      responses: { 204: { description: 'Deleted' } },
      errors: ['invalid_secret_name', 'secret_not_found', 'secrets_not_configured'],
    }),
  );
  app.delete('/:name', async (c) => {
    const name = secretName(c.req.param('name'));
    if (!(await deleteSecret(deps.db, c.var.tenant.id, name))) throw errors.notFound('secret', name);
    await audit(deps.db, c, 'secret.deleted', { type: 'secret', id: name });
    return c.body(null, 204);
  });
  return app;
}
