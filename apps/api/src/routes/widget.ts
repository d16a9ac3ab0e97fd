import { getAgent, getAgentVersion, isId } from '@agentry/db';
import { errors } from '@agentry/errors';
import { compileVersion } from '@agentry/run-service';
import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { type AuthVariables, assertAgentAllowed } from '../http/auth.ts';
import { doc, ref } from '../http/openapi.ts';

/** The UI language a `basic_settings.language` implies, when it is one the widget speaks. */
function widgetLanguage(language: string | undefined): 'en' | 'zh' | null {
  if (!language) return null;
  if (/chinese|中文|mandarin|^zh\b/i.test(language)) return 'zh';
  if (/english|^en\b/i.test(language)) return 'en';
  return null;
}

/**
 * What the embeddable widget needs to start, and nothing a visitor must not see: the published
 * version's `widget` settings (without its allowed origins), the UI language, the names of the
 * declared context variables (for `setContext`) and of the client tools. No prompt, tool URLs,
 * secrets or parameters.
 */
export function widgetRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.get(
    '/bootstrap',
    doc({
      operationId: 'getWidgetBootstrap',
      tag: 'Widget',
      summary: 'What the chat widget needs to start (no prompt, tools or secrets)',
      auth: 'chat',
      query: {
        agent_id: {
          description: 'The agent',
          resource: 'agent',
          required: true,
          schema: { type: 'string', format: 'uuid' },
        },
      },
      responses: { 200: { description: 'Widget settings', schema: ref('WidgetBootstrap') } },
      errors: ['invalid_query', 'agent_not_found', 'agent_not_published'],
    }),
  );
  app.get('/bootstrap', async (c) => {
    const agentId = c.req.query('agent_id') ?? '';
    if (!agentId) throw errors.badRequest('invalid_query', 'Pass the agent as `?agent_id=`', undefined);
    const tenantId = c.var.tenant.id;
    const agent = isId(agentId) ? await getAgent(deps.db, tenantId, agentId) : undefined;
    if (!agent) throw errors.notFound('agent', agentId);
    assertAgentAllowed(c.var.principal, agent.id, 'agent', agentId);
    const version = agent.publishedVersion
      ? await getAgentVersion(deps.db, tenantId, agent.id, agent.publishedVersion)
      : undefined;
    if (!version) throw errors.conflict('agent_not_published', 'The agent has no published version');
    const { config, agent: compiled } = compileVersion(version);
    const { allowed_origins: _origins, ...widget } = config.widget ?? {};
    c.header('cache-control', 'private, max-age=60');
    return c.json({
      object: 'widget_bootstrap',
      agent_id: agent.id,
      widget: { ...widget, browser_js_eval: widget.browser_js_eval === true },
      language: widgetLanguage(config.basic_settings.language),
      context_variables: compiled.contextVariables.map((v) => v.name),
      client_tools: config.tools.filter((t) => t.type === 'client').map((t) => t.name),
      handoff: { visitor_button: config.handoff?.visitor_button === true },
    });
  });
  return app;
}
