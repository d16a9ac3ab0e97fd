import { getRun, isId, listRunMessages } from '@agentry/db';
import { errors } from '@agentry/errors';
import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import type { AuthVariables } from '../http/auth.ts';
import { runView } from '../http/views.ts';

export function runRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.get('/:id', async (c) => {
    const id = c.req.param('id');
    const run = isId(id) ? await getRun(deps.db, c.var.tenant.id, id) : undefined;
    if (!run) throw errors.notFound('run', id);
    return c.json(runView(run, await listRunMessages(deps.db, c.var.tenant.id, run.id)));
  });
  return app;
}
