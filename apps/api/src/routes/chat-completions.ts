import { contextIssues, reservedContextIssues } from '@agentry/config';
import { type Agent, type AgentVersion, getAgent, getAgentVersion, listAgents, type Tenant } from '@agentry/db';
import type { RunService, VerifiedEndUser } from '@agentry/run-service';
import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { type AuthVariables, requireTenantKey } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { rateLimit } from '../http/limits.ts';
import { doc, EXAMPLE_AGENT_ID, ref } from '../http/openapi.ts';
import { completion, completionStream, type StartedRun } from './openai-completion.ts';
import { openAiErrorResponse } from './openai-errors.ts';
import {
  ChatRequest,
  contextFrom,
  invalidRequest,
  modelNotFound,
  parseModel,
  refuseClientFeatures,
  splitMessages,
} from './openai-request.ts';

/**
 * The OpenAI-compatible surface: `POST /v1/chat/completions` (where `model` names an agent) and
 * `GET /v1/models` (the tenant's agents). Any OpenAI client can talk to an agent, tools and all.
 *
 * Errors leave in OpenAI's shape `{ error: { message, type, param, code } }`, not problem+json:
 * OpenAI clients read `error.message`/`error.code` to build their exceptions, and these routes
 * exist for exactly those clients. That is why the routes check the key themselves (instead of the
 * shared tenant middleware, whose errors are problem+json): a bad key is a 401 in OpenAI's shape too.
 */

/** The agent and version a request runs: the pinned one, or the agent's published version. */
async function resolveAgent(deps: ApiDeps, tenantId: string, model: string) {
  const named = parseModel(model);
  const agent = named ? await getAgent(deps.db, tenantId, named.agentId) : undefined;
  if (!named || !agent) throw modelNotFound(model);
  const number = named.version ?? agent.publishedVersion;
  if (number === null) {
    throw invalidRequest(
      'agent_not_published',
      `The agent has no published version; publish one or name a version as \`agent:${agent.id}@<version>\``,
      'model',
    );
  }
  const version = await getAgentVersion(deps.db, tenantId, agent.id, number);
  if (!version) throw modelNotFound(model);
  return { agent, version, pinned: named.version !== undefined };
}

/**
 * Stores a new conversation (the request's earlier turns, then its new user message) with a queued
 * run, through the run service: nothing is written when the context, the agent's model or secrets
 * cannot be had, and what was written is removed when the run cannot be queued.
 */
async function startRun(
  runs: RunService,
  tenant: Tenant,
  target: { agent: Agent; version: AgentVersion; pinned: boolean },
  body: ChatRequest,
  endUser: VerifiedEndUser | undefined,
): Promise<StartedRun> {
  const { history, input } = splitMessages(body.messages);
  // `metadata` is where context comes from here: a system variable in it is refused like in a
  // conversation's context, not silently dropped.
  const [reserved] = reservedContextIssues(body.metadata ?? {}, (name) => `metadata.${name}`);
  if (reserved) throw invalidRequest('invalid_context', reserved.message, reserved.path);
  const { run, conversation } = await runs.startConversationRun({
    tenant,
    agentId: target.agent.id,
    version: target.version,
    pinned: target.pinned,
    history,
    message: { role: 'user', content: [{ type: 'text', text: input }] },
    endUser,
    context: (agent) => {
      const context = contextFrom(body.metadata, agent.contextVariables);
      const issues = contextIssues(agent.contextVariables, context);
      if (issues.length > 0) {
        const listed = issues.map((i) => i.message).join('; ');
        throw invalidRequest(
          'invalid_context',
          `Pass the agent's context variables in \`metadata\`: ${listed}`,
          'metadata',
        );
      }
      return context;
    },
  });
  return { run, conversationId: conversation.id };
}

function modelView(agent: Agent, owner: string) {
  return {
    id: agent.id,
    object: 'model',
    created: Math.floor(agent.createdAt.getTime() / 1000),
    owned_by: owner,
    name: agent.name,
    published_version: agent.publishedVersion,
    latest_version: agent.latestVersion,
  };
}

async function allAgents(deps: ApiDeps, tenantId: string): Promise<Agent[]> {
  const all: Agent[] = [];
  for (;;) {
    const page = await listAgents(deps.db, tenantId, { limit: 100, ...(all.length ? { before: all.at(-1)!.id } : {}) });
    all.push(...page);
    if (page.length < 100) return all;
  }
}

/**
 * `POST /v1/chat/completions` and `GET /v1/models`, mounted on `/v1` before the tenant-scoped
 * routes (they authenticate on their own so that every error, a bad key included, is OpenAI-shaped).
 *
 * @example
 * v1.route('/', chatCompletionRoutes(deps));
 * // then: new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk_…' }).chat.completions.create({ model: agentId, messages })
 */
export function chatCompletionRoutes(deps: ApiDeps, runs: RunService) {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.onError((error, c) => openAiErrorResponse(deps, c, error));
  // The same key check, rate limit and daily quota as the tenant-scoped routes, inside this app's onError.
  const guards = [
    requireTenantKey(deps.db, deps.secretBox, { cache: deps.apiKeyCache }),
    rateLimit(deps.rateLimit),
  ] as const;
  app.use('/chat/completions', ...guards);
  app.use('/models', ...guards);

  app.post(
    '/chat/completions',
    doc({
      operationId: 'createChatCompletion',
      tag: 'OpenAI-compatible',
      summary: 'Chat with an agent through the OpenAI chat completions API',
      description:
        '`model` = agent id, `agent:<id>` or `agent:<id>@<version>`. Each request is a new conversation seeded with its earlier user/assistant turns; system and tool messages are ignored, client `tools` refused, context variables from `metadata` (a system variable such as `tenantId` there: 400 `invalid_context`). `stream: true` answers SSE chunks. A run not done within `RUN_WAIT_MS` or not completed answers 504/502 with the run id and `x-should-retry: false`.',
      auth: 'tenant',
      errorFormat: 'openai',
      body: {
        schema: ChatRequest,
        example: {
          model: `agent:${EXAMPLE_AGENT_ID}`,
          messages: [{ role: 'user', content: 'Where is my order A-1001?' }],
        },
      },
      responses: {
        200: {
          description: 'The completion; with `stream: true`, `chat.completion.chunk` events ending with `[DONE]`',
          schema: ref('ChatCompletion'),
          also: { 'text/event-stream': { type: 'string' } },
          headers: {
            'x-agentry-run-id': 'The run that answered',
            'x-agentry-conversation-id': 'The conversation the request created',
          },
        },
      },
      errors: [
        'invalid_messages',
        'unsupported_content',
        'unsupported_parameter',
        'unsupported_value',
        'model_not_found',
        'agent_not_published',
        'invalid_context',
        'missing_secret',
        'quota_exceeded',
        'conversation_queue_full',
        'model_not_configured',
        'queue_unavailable',
        'run_failed',
        'run_cancelled',
        'run_timeout',
        'run_not_finished',
      ],
    }),
  );
  app.post('/chat/completions', async (c) => {
    const body = await readJson(c, ChatRequest);
    refuseClientFeatures(body);
    const tenantId = c.var.tenant.id;
    const target = await resolveAgent(deps, tenantId, body.model);
    const started = await startRun(runs, c.var.tenant, target, body, c.var.principal.endUser);
    c.header('x-agentry-run-id', started.run.id);
    c.header('x-agentry-conversation-id', started.conversationId);
    if (body.stream) return completionStream(deps, c, tenantId, started, body);
    return completion(deps, c, tenantId, started, body.model);
  });

  app.get(
    '/models',
    doc({
      operationId: 'listModels',
      tag: 'OpenAI-compatible',
      summary: 'The tenant’s agents as OpenAI models',
      auth: 'tenant',
      errorFormat: 'openai',
      responses: { 200: { description: 'The models', schema: ref('ModelList') } },
    }),
  );
  app.get('/models', async (c) => {
    const agents = await allAgents(deps, c.var.tenant.id);
    return c.json({ object: 'list', data: agents.map((a) => modelView(a, c.var.tenant.name)) });
  });

  return app;
}
