import { testGate } from '@agentry/agent-tests';
import { type AgentConfig, compileAgent, loadAgentConfig } from '@agentry/config';
import { PG_INTEGER_MAX } from '@agentry/contract';
import { NewAgentVersionBody, PublishBody, ValidateConfigBody } from '@agentry/contract/schemas';
import {
  addAgentVersion,
  countRecentRuns,
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
import { compileVersion } from '@agentry/run-service';
import { Hono } from 'hono';
import diff from 'microdiff';
import type { ApiDeps } from '../deps.ts';
import { audit } from '../http/audit.ts';
import type { AuthVariables } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { doc, PAGE_QUERY, type ParamDoc, ref } from '../http/openapi.ts';
import { pageOf, readPage } from '../http/pagination.ts';
import { agentView, versionView } from '../http/views.ts';
import { assertMayForcePublish, forceReason, testsFailed } from './agent-tests.ts';
import { flowTriggerTestRoute } from './flow-trigger-test.ts';
import { assertStdioServersAllowed, discoverForUpload, mcpCheck, versionMcpView } from './mcp-discovery.ts';
import { toolTestRoute } from './tool-test.ts';

const EXAMPLE_CONFIG = {
  basic_settings: { name: 'Support', personality: 'Friendly and brief', language: 'English' },
};
const agentId: Record<string, ParamDoc> = { id: { description: 'The agent id', resource: 'agent' } };
const versionParams: Record<string, ParamDoc> = {
  ...agentId,
  n: {
    description: 'The version number (1, 2, …)',
    resource: 'agent_version',
    schema: { type: 'integer', minimum: 1 },
  },
};
const configBody = { config: ref('AgentConfig') };
async function loadAgent(db: Db, tenantId: string, id: string) {
  const agent = isId(id) ? await getAgent(db, tenantId, id) : undefined;
  if (!agent) throw errors.notFound('agent', id);
  return agent;
}

function versionNumber(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > PG_INTEGER_MAX) throw errors.notFound('agent_version', raw);
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

  app.post(
    '/validate',
    doc({
      operationId: 'validateAgentConfig',
      tag: 'Agents',
      summary: 'Validate an agent config without storing it',
      description: 'A 422 lists every problem at once (JSON pointers into the config).',
      auth: 'tenant',
      body: { schema: ValidateConfigBody, replace: configBody, example: { config: EXAMPLE_CONFIG } },
      responses: { 200: { description: 'The config is valid: a summary of it', schema: ref('AgentSummary') } },
    }),
  );
  app.post('/validate', async (c) => {
    const body = await readJson(c, ValidateConfigBody);
    const { config, hash } = loadAgentConfig(body.config); // a 422 lists every issue
    assertStdioServersAllowed(deps, config); // the same answer the upload would give
    return c.json({ valid: true, summary: summary(config, hash) });
  });

  app.route('/tools', toolTestRoute(deps));
  app.route('/flows', flowTriggerTestRoute());

  app.get(
    '/',
    doc({
      operationId: 'listAgents',
      tag: 'Agents',
      summary: 'List agents, newest first, with their runs in the last 24 hours',
      auth: 'tenant',
      query: PAGE_QUERY,
      responses: { 200: { description: 'A page of agents', schema: ref('AgentList') } },
      errors: ['invalid_query'],
    }),
  );
  app.get('/', async (c) => {
    const page = readPage(c);
    const rows = await listAgents(deps.db, c.var.tenant.id, { ...page, limit: page.limit + 1 });
    const since = new Date(Date.now() - 24 * 3600 * 1000);
    const recent = await countRecentRuns(
      deps.db,
      c.var.tenant.id,
      rows.slice(0, page.limit).map((a) => a.id),
      since,
    );
    return c.json(pageOf(rows, page, (agent) => ({ ...agentView(agent), runs_24h: recent.get(agent.id) ?? 0 })));
  });

  app.post(
    '/',
    doc({
      operationId: 'createAgent',
      tag: 'Agents',
      summary: 'Create an agent from a config (version 1, published unless `publish: false`)',
      description: 'MCP servers in the config are discovered now; one that cannot be reached fails the upload (422).',
      auth: 'tenant',
      body: { schema: NewAgentVersionBody, replace: configBody, example: { config: EXAMPLE_CONFIG, publish: true } },
      responses: { 201: { description: 'The agent and its first version', schema: ref('AgentCreated') } },
      errors: ['secrets_not_configured', 'missing_secret'],
    }),
  );
  app.post('/', async (c) => {
    const body = await readJson(c, NewAgentVersionBody);
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

  app.get(
    '/:id',
    doc({
      operationId: 'getAgent',
      tag: 'Agents',
      summary: 'An agent',
      auth: 'tenant',
      path: agentId,
      responses: { 200: { description: 'The agent', schema: ref('Agent') } },
      errors: ['agent_not_found'],
    }),
  );
  app.get('/:id', async (c) => c.json(agentView(await loadAgent(deps.db, c.var.tenant.id, c.req.param('id')))));

  app.get(
    '/:id/prompt',
    doc({
      operationId: 'getAgentPrompt',
      tag: 'Agents',
      summary: 'The system prompt a version compiles to',
      auth: 'tenant',
      path: agentId,
      query: {
        version: {
          description: 'Version number; default the published (else the latest) version',
          schema: { type: 'integer', minimum: 1 },
        },
      },
      responses: { 200: { description: 'The system prompt', schema: ref('AgentPrompt') } },
      errors: ['agent_not_found', 'agent_version_not_found'],
    }),
  );
  app.get('/:id/prompt', async (c) => {
    const agent = await loadAgent(deps.db, c.var.tenant.id, c.req.param('id'));
    const number = c.req.query('version')
      ? versionNumber(c.req.query('version')!)
      : (agent.publishedVersion ?? agent.latestVersion);
    const version = await getAgentVersion(deps.db, agent.tenantId, agent.id, number);
    if (!version) throw errors.notFound('agent_version', String(number));
    return c.json({ agent_id: agent.id, version: number, prompt: compileVersion(version).agent.systemPrompt });
  });

  app.get(
    '/:id/versions',
    doc({
      operationId: 'listAgentVersions',
      tag: 'Agents',
      summary: 'An agent’s versions',
      auth: 'tenant',
      path: agentId,
      responses: { 200: { description: 'All versions (one page)', schema: ref('AgentVersionList') } },
      errors: ['agent_not_found'],
    }),
  );
  app.get('/:id/versions', async (c) => {
    const agent = await loadAgent(deps.db, c.var.tenant.id, c.req.param('id'));
    const versions = await listAgentVersions(deps.db, agent.tenantId, agent.id);
    return c.json({ object: 'list', data: versions.map((v) => versionView(v, agent)), next_cursor: null });
  });

  app.post(
    '/:id/versions',
    doc({
      operationId: 'createAgentVersion',
      tag: 'Agents',
      summary: 'Add a version (immutable; published unless `publish: false`)',
      auth: 'tenant',
      path: agentId,
      body: { schema: NewAgentVersionBody, replace: configBody, example: { config: EXAMPLE_CONFIG, publish: false } },
      responses: { 201: { description: 'The new version', schema: ref('AgentVersion') } },
      errors: ['agent_not_found', 'secrets_not_configured', 'missing_secret', 'tests_failed', 'insufficient_role'],
    }),
  );
  app.post('/:id/versions', async (c) => {
    const agent = await loadAgent(deps.db, c.var.tenant.id, c.req.param('id'));
    const body = await readJson(c, NewAgentVersionBody);
    const { config, hash } = loadAgentConfig(body.config);
    // Issue 22: a new version has no test run yet, so under the gate it is published only by force.
    const publish = body.publish ?? true;
    const forced = publish && agent.requirePassingTests;
    if (forced) {
      if (!body.force_publish)
        throw testsFailed(agent.latestVersion + 1, {
          required: true,
          state: 'missing',
          testRun: undefined,
          failingCases: [],
        });
      assertMayForcePublish(c.var.principal);
      forceReason(body.publish_reason, '/publish_reason');
    }
    // MCP (issue 9): discover the servers' tools now; a server that is down fails the upload (422).
    const discoveredTools = await discoverForUpload(deps, c.var.tenant, compileAgent(config, hash));
    const created = await addAgentVersion(deps.db, agent.id, {
      tenantId: agent.tenantId,
      name: config.basic_settings.name,
      config: body.config as Record<string, unknown>,
      contentHash: hash,
      publish,
      discoveredTools: discoveredTools as Record<string, unknown> | null,
    });
    if (!created) throw errors.notFound('agent', agent.id);
    if (forced) {
      await audit(
        deps.db,
        c,
        'agent.version_published',
        { type: 'agent', id: agent.id },
        {
          version: created.version.version,
          previous_version: agent.publishedVersion,
          forced: true,
          reason: body.publish_reason,
          test_state: 'missing',
        },
      );
    }
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

  app.get(
    '/:id/versions/:n',
    doc({
      operationId: 'getAgentVersion',
      tag: 'Agents',
      summary: 'A version with its config and the MCP tools found at upload',
      auth: 'tenant',
      path: versionParams,
      responses: { 200: { description: 'The version', schema: ref('AgentVersionDetail') } },
      errors: ['agent_not_found', 'agent_version_not_found'],
    }),
  );
  app.get('/:id/versions/:n', async (c) => {
    const agent = await loadAgent(deps.db, c.var.tenant.id, c.req.param('id'));
    const version = await getAgentVersion(deps.db, agent.tenantId, agent.id, versionNumber(c.req.param('n')));
    if (!version) throw errors.notFound('agent_version', c.req.param('n'));
    return c.json({ ...versionView(version, agent), config: version.config, ...versionMcpView(version) });
  });

  app.post(
    '/:id/versions/:n/mcp-check',
    doc({
      operationId: 'checkAgentVersionMcp',
      tag: 'Agents',
      summary: 'Discover a version’s MCP tools again and compare (runs are unaffected)',
      auth: 'tenant',
      path: versionParams,
      responses: { 200: { description: 'Stored and current tools, with warnings', schema: ref('McpCheck') } },
      errors: ['agent_not_found', 'agent_version_not_found', 'secrets_not_configured', 'missing_secret'],
    }),
  );
  // MCP (issue 9): re-discover and compare with the tools stored at publish; runs are unaffected.
  app.post('/:id/versions/:n/mcp-check', async (c) => {
    const agent = await loadAgent(deps.db, c.var.tenant.id, c.req.param('id'));
    const version = await getAgentVersion(deps.db, agent.tenantId, agent.id, versionNumber(c.req.param('n')));
    if (!version) throw errors.notFound('agent_version', c.req.param('n'));
    const checked = await mcpCheck(deps, c.var.tenant, compileVersion(version).agent, version);
    return c.json({ agent_id: agent.id, version: version.version, ...checked });
  });

  app.post(
    '/:id/versions/:n/publish',
    doc({
      operationId: 'publishAgentVersion',
      tag: 'Agents',
      summary: 'Publish a version (new conversations and unpinned ones use it)',
      description:
        'Under `require_passing_tests` the version’s latest test run must have passed (else 409 `tests_failed`); an owner may send `{"force": true, "reason": "…"}` to publish anyway (audited).',
      auth: 'tenant',
      path: versionParams,
      body: { schema: PublishBody, example: { force: true, reason: 'Hotfix for the outage; tests updated next' } },
      responses: { 200: { description: 'The agent', schema: ref('Agent') } },
      errors: ['agent_not_found', 'agent_version_not_found', 'tests_failed', 'insufficient_role'],
    }),
  );
  app.post('/:id/versions/:n/publish', async (c) => {
    const agent = await loadAgent(deps.db, c.var.tenant.id, c.req.param('id'));
    const n = versionNumber(c.req.param('n'));
    // The body is optional: `{force, reason}` only to publish past failing tests.
    const body = c.req.header('content-type') ? await readJson(c, PublishBody) : {};
    let forced: { reason: string; state: string } | undefined;
    if (agent.requirePassingTests) {
      if (!(await getAgentVersion(deps.db, agent.tenantId, agent.id, n)))
        throw errors.notFound('agent_version', String(n));
      const gate = await testGate(deps.db, agent, n);
      if (gate.state !== 'passing') {
        if (!body.force) throw testsFailed(n, gate);
        assertMayForcePublish(c.var.principal);
        forced = { reason: forceReason(body.reason, '/reason'), state: gate.state };
      }
    }
    const updated = await publishAgentVersion(deps.db, agent.tenantId, agent.id, n);
    if (!updated) throw errors.notFound('agent_version', c.req.param('n'));
    await audit(
      deps.db,
      c,
      'agent.version_published',
      { type: 'agent', id: agent.id },
      {
        version: updated.publishedVersion,
        previous_version: agent.publishedVersion,
        ...(forced ? { forced: true, reason: forced.reason, test_state: forced.state } : {}),
      },
    );
    return c.json(agentView(updated));
  });

  app.get(
    '/:id/versions/:a/diff/:b',
    doc({
      operationId: 'diffAgentVersions',
      tag: 'Agents',
      summary: 'What changed between two versions’ configs (JSON pointers)',
      auth: 'tenant',
      path: {
        ...agentId,
        a: { description: 'From version', resource: 'agent_version', schema: { type: 'integer', minimum: 1 } },
        b: { description: 'To version', resource: 'agent_version', schema: { type: 'integer', minimum: 1 } },
      },
      responses: { 200: { description: 'The changes', schema: ref('AgentDiff') } },
      errors: ['agent_not_found', 'agent_version_not_found'],
    }),
  );
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
