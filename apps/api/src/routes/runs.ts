import { FINAL_RUN_STATUSES, finishRunUnfenced, getRun, isId, listRunMessages, requestCancel } from '@agentry/db';
import { errors } from '@agentry/errors';
import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { type AuthVariables, assertAgentAllowed, type Principal } from '../http/auth.ts';
import { streamRunEvents } from '../http/run-stream.ts';
import { runView } from '../http/views.ts';

/** How long a cancel request waits for the run to stop before answering 202. */
const CANCEL_WAIT_MS = 3000;

export function runRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();
  const load = async (tenantId: string, id: string, principal: Principal) => {
    const run = isId(id) ? await getRun(deps.db, tenantId, id) : undefined;
    if (!run) throw errors.notFound('run', id);
    assertAgentAllowed(principal, run.agentId, 'run', id);
    return run;
  };

  app.get('/:id', async (c) => {
    const run = await load(c.var.tenant.id, c.req.param('id'), c.var.principal);
    return c.json(runView(run, await listRunMessages(deps.db, c.var.tenant.id, run.id)));
  });

  app.post('/:id/cancel', async (c) => {
    const found = await load(c.var.tenant.id, c.req.param('id'), c.var.principal);
    const run = (await requestCancel(deps.db, found.tenantId, found.id)) ?? found;
    if (run.status === 'queued' && (await finishRunUnfenced(deps.db, run.id, { status: 'cancelled' }, ['queued']))) {
      // Never started: no worker holds it, so the API ends it.
      await deps.events.publish(run.id, { type: 'run-status', status: 'cancelled', final: true });
    } else if (!FINAL_RUN_STATUSES.includes(run.status)) {
      await deps.control.cancel(run.id);
      await deps.queue.waitUntilFinished(run.id, CANCEL_WAIT_MS);
    }
    const latest = (await getRun(deps.db, run.tenantId, run.id)) ?? run;
    return c.json(
      runView(latest, await listRunMessages(deps.db, run.tenantId, run.id)),
      FINAL_RUN_STATUSES.includes(latest.status) ? 200 : 202,
    );
  });

  app.get('/:id/events', async (c) =>
    streamRunEvents(c, deps.events, await load(c.var.tenant.id, c.req.param('id'), c.var.principal)),
  );
  return app;
}
