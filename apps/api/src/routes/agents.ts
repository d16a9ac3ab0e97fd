import { loadAgentConfig } from '@agentry/config';
import { addAgentVersion, createAgent, getAgent, isId } from '@agentry/db';
import { errors } from '@agentry/errors';
import { Hono } from 'hono';
import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import type { AuthVariables } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { agentView, versionView } from '../http/views.ts';

const NewVersion = z.strictObject({ config: z.unknown(), publish: z.boolean().optional() });

/** Agents and their immutable versions. */
export function agentRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.post('/', async (c) => {
    const body = await readJson(c, NewVersion);
    const { config, hash } = loadAgentConfig(body.config);
    const { agent, version } = await createAgent(deps.db, {
      tenantId: c.var.tenant.id,
      name: config.basic_settings.name,
      config: body.config as Record<string, unknown>,
      contentHash: hash,
      publish: body.publish ?? true,
    });
    return c.json({ ...agentView(agent), version: versionView(version, agent) }, 201);
  });

  app.get('/:id', async (c) => {
    const id = c.req.param('id');
    const agent = isId(id) ? await getAgent(deps.db, c.var.tenant.id, id) : undefined;
    if (!agent) throw errors.notFound('agent', id);
    return c.json(agentView(agent));
  });

  app.post('/:id/versions', async (c) => {
    const id = c.req.param('id');
    if (!isId(id) || !(await getAgent(deps.db, c.var.tenant.id, id))) throw errors.notFound('agent', id);
    const body = await readJson(c, NewVersion);
    const { config, hash } = loadAgentConfig(body.config);
    const created = await addAgentVersion(deps.db, id, {
      tenantId: c.var.tenant.id,
      name: config.basic_settings.name,
      config: body.config as Record<string, unknown>,
      contentHash: hash,
      publish: body.publish ?? true,
    });
    if (!created) throw errors.notFound('agent', id);
    return c.json(versionView(created.version, created.agent), 201);
  });

  return app;
}
