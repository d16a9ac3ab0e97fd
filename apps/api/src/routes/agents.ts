import { type AgentConfig, compileAgent, loadAgentConfig } from '@agentry/config';
import {
  addAgentVersion,
  createAgent,
  type Db,
  getAgent,
  getAgentVersion,
  isId,
  listAgents,
  listAgentVersions,
  publishAgentVersion,
} from '@agentry/db';
import { errors } from '@agentry/errors';
import { Hono } from 'hono';
import diff from 'microdiff';
import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { audit } from '../http/audit.ts';
import type { AuthVariables } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { pageOf, readPage } from '../http/pagination.ts';
import { agentView, versionView } from '../http/views.ts';
import { discoverForUpload, mcpCheck, versionMcpView } from './mcp-discovery.ts';
import { toolTestRoute } from './tool-test.ts';

const NewVersion = z.strictObject({ config: z.unknown(), publish: z.boolean().optional() });
const Validate = z.strictObject({ config: z.unknown() });

async function loadAgent(db: Db, tenantId: string, id: string) {
  const agent = isId(id) ? await getAgent(db, tenantId, id) : undefined;
  if (!agent) throw errors.notFound('agent', id);
  return agent;
}

function versionNumber(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw errors.notFound('agent_version', raw);
  return n;
}

/** A short description of a valid config, for editors and the validate endpoint. */
function summary(config: AgentConfig, hash: string) {
  const compiled = compileAgent(config, hash);
  return {
    name: config.basic_settings.name,
    content_hash: hash,
    tools: compiled.tools.map((t) => ({ name: t.name, type: t.kind, method: t.method, approval: t.approval })),
    action_books: config.action_books.length,
    system_prompt: compiled.systemPrompt,
  };
}

/** Agents, their immutable versions, validation, the tool tester and the system prompt. */
export function agentRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.post('/validate', async (c) => {
    const body = await readJson(c, Validate);
    const { config, hash } = loadAgentConfig(body.config); // a 422 lists every issue
    return c.json({ valid: true, summary: summary(config, hash) });
  });

  app.route('/tools', toolTestRoute(deps));

  app.get('/', async (c) => {
    const page = readPage(c);
    const rows = await listAgents(deps.db, c.var.tenant.id, { ...page, limit: page.limit + 1 });
    return c.json(pageOf(rows, page, agentView));
  });

  app.post('/', async (c) => {
    const body = await readJson(c, NewVersion);
    const { config, hash } = loadAgentConfig(body.config);
    // MCP (issue 9): discover the servers' tools now; a server that is down fails the upload (422).
    const discoveredTools = await discoverForUpload(deps, c.var.tenant, compileAgent(config, hash));
    const { agent, version } = await createAgent(deps.db, {
      tenantId: c.var.tenant.id,
      name: config.basic_settings.name,
      config: body.config as Record<string, unknown>,
      contentHash: hash,
      publish: body.publish ?? true,
      discoveredTools: discoveredTools as Record<string, unknown> | null,
    });
    await audit(
      deps.db,
      c,
      'agent.created',
      { type: 'agent', id: agent.id },
      { name: agent.name, version: 1, published: agent.publishedVersion === 1, content_hash: hash },
    );
    return c.json({ ...agentView(agent), version: versionView(version, agent) }, 201);
  });

  app.get('/:id', async (c) => c.json(agentView(await loadAgent(deps.db, c.var.tenant.id, c.req.param('id')))));

  app.get('/:id/prompt', async (c) => {
    const agent = await loadAgent(deps.db, c.var.tenant.id, c.req.param('id'));
    const number = c.req.query('version')
      ? versionNumber(c.req.query('version')!)
      : (agent.publishedVersion ?? agent.latestVersion);
    const version = await getAgentVersion(deps.db, agent.tenantId, agent.id, number);
    if (!version) throw errors.notFound('agent_version', String(number));
    const { config, hash } = loadAgentConfig(version.config);
    return c.json({ agent_id: agent.id, version: number, prompt: compileAgent(config, hash).systemPrompt });
  });

  app.get('/:id/versions', async (c) => {
    const agent = await loadAgent(deps.db, c.var.tenant.id, c.req.param('id'));
    const versions = await listAgentVersions(deps.db, agent.tenantId, agent.id);
    return c.json({ object: 'list', data: versions.map((v) => versionView(v, agent)), next_cursor: null });
  });

  app.post('/:id/versions', async (c) => {
    const agent = await loadAgent(deps.db, c.var.tenant.id, c.req.param('id'));
    const body = await readJson(c, NewVersion);
    const { config, hash } = loadAgentConfig(body.config);
    // MCP (issue 9): discover the servers' tools now; a server that is down fails the upload (422).
    const discoveredTools = await discoverForUpload(deps, c.var.tenant, compileAgent(config, hash));
    const created = await addAgentVersion(deps.db, agent.id, {
      tenantId: agent.tenantId,
      name: config.basic_settings.name,
      config: body.config as Record<string, unknown>,
      contentHash: hash,
      publish: body.publish ?? true,
      discoveredTools: discoveredTools as Record<string, unknown> | null,
    });
    if (!created) throw errors.notFound('agent', agent.id);
    await audit(
      deps.db,
      c,
      'agent.version_created',
      { type: 'agent', id: agent.id },
      {
        version: created.version.version,
        published: created.agent.publishedVersion === created.version.version,
        content_hash: hash,
      },
    );
    return c.json(versionView(created.version, created.agent), 201);
  });

  app.get('/:id/versions/:n', async (c) => {
    const agent = await loadAgent(deps.db, c.var.tenant.id, c.req.param('id'));
    const version = await getAgentVersion(deps.db, agent.tenantId, agent.id, versionNumber(c.req.param('n')));
    if (!version) throw errors.notFound('agent_version', c.req.param('n'));
    return c.json({ ...versionView(version, agent), config: version.config, ...versionMcpView(version) });
  });

  // MCP (issue 9): re-discover and compare with the tools stored at publish; runs are unaffected.
  app.post('/:id/versions/:n/mcp-check', async (c) => {
    const agent = await loadAgent(deps.db, c.var.tenant.id, c.req.param('id'));
    const version = await getAgentVersion(deps.db, agent.tenantId, agent.id, versionNumber(c.req.param('n')));
    if (!version) throw errors.notFound('agent_version', c.req.param('n'));
    const { config, hash } = loadAgentConfig(version.config);
    const checked = await mcpCheck(deps, c.var.tenant, compileAgent(config, hash), version);
    return c.json({ agent_id: agent.id, version: version.version, ...checked });
  });

  app.post('/:id/versions/:n/publish', async (c) => {
    const agent = await loadAgent(deps.db, c.var.tenant.id, c.req.param('id'));
    const updated = await publishAgentVersion(deps.db, agent.tenantId, agent.id, versionNumber(c.req.param('n')));
    if (!updated) throw errors.notFound('agent_version', c.req.param('n'));
    await audit(
      deps.db,
      c,
      'agent.version_published',
      { type: 'agent', id: agent.id },
      { version: updated.publishedVersion, previous_version: agent.publishedVersion },
    );
    return c.json(agentView(updated));
  });

  app.get('/:id/versions/:a/diff/:b', async (c) => {
    const agent = await loadAgent(deps.db, c.var.tenant.id, c.req.param('id'));
    const [a, b] = await Promise.all(
      [c.req.param('a'), c.req.param('b')].map(async (raw) => {
        const version = await getAgentVersion(deps.db, agent.tenantId, agent.id, versionNumber(raw));
        if (!version) throw errors.notFound('agent_version', raw);
        return version;
      }),
    );
    const changes = diff(a!.config, b!.config).map((change) => ({
      path: `/${change.path.map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`,
      op: change.type === 'CREATE' ? 'add' : change.type === 'REMOVE' ? 'remove' : 'replace',
      ...('oldValue' in change ? { before: change.oldValue } : {}),
      ...('value' in change ? { after: change.value } : {}),
    }));
    return c.json({ agent_id: agent.id, from: a!.version, to: b!.version, changes });
  });

  return app;
}
