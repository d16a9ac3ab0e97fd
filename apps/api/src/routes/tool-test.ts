import {
  compileAgent,
  loadAgentConfig,
  maskSecrets,
  type RenderedRequest,
  reservedContextIssues,
} from '@agentry/config';
import { ToolTestBody } from '@agentry/contract/schemas';
import { getSealedSecrets } from '@agentry/db';
import { errors } from '@agentry/errors';
import { createHttpToolExecutor, withAllowlist } from '@agentry/http-tools';
import { secretContext } from '@agentry/run-service';
import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import type { AuthVariables } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { doc, ref } from '../http/openapi.ts';

/**
 * The tool tester: shows the exact request a call would send (secrets masked) and, with
 * `send: true`, sends it and returns what the model would see.
 */
export function toolTestRoute(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.post(
    '/test',
    doc({
      operationId: 'testTool',
      tag: 'Agents',
      summary: 'Render (and with `send: true`, send) one tool call of a config',
      description:
        'Shows the exact request a call would send, secrets masked; stored secrets are used, a missing one renders as a visible marker. With `send: true` the request goes out through the egress guard and the answer is what the model would see.',
      auth: 'tenant',
      body: {
        schema: ToolTestBody,
        replace: { config: ref('AgentConfig') },
        example: {
          config: {
            basic_settings: { name: 'Support' },
            tools: [
              {
                name: 'order_status',
                description: 'Look up an order',
                endpoint: { method: 'GET', url: 'https://shop.example.com/orders/{{order_id}}' },
                parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
              },
            ],
          },
          tool: 'order_status',
          arguments: { order_id: 'A-1001' },
          send: false,
        },
      },
      responses: { 200: { description: 'The rendered request (and the answer)', schema: ref('ToolTestResult') } },
      errors: ['tool_not_found', 'invalid_arguments', 'invalid_context'],
    }),
  );
  app.post('/test', async (c) => {
    const body = await readJson(c, ToolTestBody);
    const { config, hash } = loadAgentConfig(body.config);
    const agent = compileAgent(config, hash);
    const tool = agent.tools.find((t) => t.name === body.tool);
    if (!tool) throw errors.notFound('tool', body.tool);
    // The test fills the system variables itself, as a run does; a caller's are refused alike.
    const reserved = reservedContextIssues(body.context ?? {}).map((issue) => ({
      ...issue,
      path: `/context${issue.path}`,
    }));
    if (reserved.length > 0)
      throw errors.validation('The context may not set system variables', reserved, 'invalid_context');
    const checked = tool.validateArguments(body.arguments);
    if (!checked.ok)
      throw errors.validation('The arguments do not match the tool’s parameters', checked.issues, 'invalid_arguments');
    // Set secrets are used (and masked in what is returned); a missing one renders as a visible marker.
    const stored = await storedSecrets(deps, c.var.tenant.id, tool.secretNames);
    const secrets = Object.fromEntries(
      tool.secretNames.map((name) => [name, stored[name] ?? `secret-${name}-not-set`]),
    );
    const context = {
      ...body.context,
      tenantId: c.var.tenant.id,
      agentId: 'agent-under-test',
      conversationId: 'conversation-under-test',
      dialogId: 'conversation-under-test',
      ...(config.basic_settings.chatbot_id ? { chatbotId: config.basic_settings.chatbot_id } : {}),
    };
    const request = tool.render(checked.value, { context, secrets });
    const masked = maskRequest(request, secrets);
    if (!body.send) return c.json({ request: masked });
    const egress = withAllowlist(deps.egress, c.var.tenant.egressAllowlist);
    const executor = createHttpToolExecutor({ agent, context: { context, secrets }, egress });
    const started = performance.now();
    const result = await executor.execute({
      type: 'tool_call',
      id: 'tool-test',
      name: tool.name,
      arguments: body.arguments,
    });
    return c.json({
      request: masked,
      response: {
        status: (result.meta?.status as number | undefined) ?? null,
        duration_ms: Math.round(performance.now() - started),
        output: result.output,
        is_error: result.isError,
        ...(result.errorCode ? { error_code: result.errorCode } : {}),
      },
    });
  });
  return app;
}

function maskRequest(request: RenderedRequest, secrets: Record<string, string>) {
  const mask = (text: string) => maskSecrets(text, secrets);
  return {
    method: request.method,
    url: mask(request.url),
    headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, mask(v)])),
    body: request.body === undefined ? null : mask(request.body),
  };
}

async function storedSecrets(deps: ApiDeps, tenantId: string, names: string[]): Promise<Record<string, string>> {
  if (!deps.secretBox || names.length === 0) return {};
  const rows = await getSealedSecrets(deps.db, tenantId, names);
  return Object.fromEntries(rows.map((r) => [r.name, deps.secretBox!.open(r, secretContext(tenantId, r.name))]));
}
