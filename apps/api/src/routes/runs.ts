import { getRun, isId, listRunMessages } from '@agentry/db';
import { errors } from '@agentry/errors';
import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import type { AuthVariables } from '../http/auth.ts';
import { streamRunEvents } from '../http/run-stream.ts';
import { runView } from '../http/views.ts';

export function runRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();
  const load = async (tenantId: string, id: string) => {
    const run = isId(id) ? await getRun(deps.db, tenantId, id) : undefined;
    if (!run) throw errors.notFound('run', id);
    return run;
  };

  app.get('/:id', async (c) => {
    const run = await load(c.var.tenant.id, c.req.param('id'));
    return c.json(runView(run, await listRunMessages(deps.db, c.var.tenant.id, run.id)));
  });

  app.get('/:id/events', async (c) => streamRunEvents(c, deps.events, await load(c.var.tenant.id, c.req.param('id'))));
  return app;
}
