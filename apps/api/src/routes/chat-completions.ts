import { randomBytes } from 'node:crypto';
import { compileAgent, contextIssues, loadAgentConfig, reservedContextIssues } from '@agentry/config';
import {
  type Agent,
  type AgentVersion,
  createConversationWithHistory,
  createRunForMessage,
  deleteConversation,
  getAgent,
  getAgentVersion,
  getRun,
  isId,
  listAgents,
  listRunMessages,
  type Run,
  type StoredMessage,
  type Tenant,
} from '@agentry/db';
import { AppError, toAppError } from '@agentry/errors';
import type { Message } from '@agentry/llm';
import { resolveModel } from '@agentry/models';
import { runJobData } from '@agentry/queue';
import { openSecrets } from '@agentry/runner';
import { type Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { ApiDeps } from '../deps.ts';
import { type AuthVariables, requireTenantKey } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { assertDailyQuota, rateLimit } from '../http/limits.ts';
import { doc, EXAMPLE_AGENT_ID, ref } from '../http/openapi.ts';
import { waitForRunEnd } from '../http/run-wait.ts';

/**
 * The OpenAI-compatible surface: `POST /v1/chat/completions` (where `model` names an agent) and
 * `GET /v1/models` (the tenant's agents). Any OpenAI client can talk to an agent, tools and all.
 *
 * Errors leave in OpenAI's shape `{ error: { message, type, param, code } }`, not problem+json:
 * OpenAI clients read `error.message`/`error.code` to build their exceptions, and these routes
 * exist for exactly those clients. That is why the routes check the key themselves (instead of the
 * shared tenant middleware, whose errors are problem+json): a bad key is a 401 in OpenAI's shape too.
 */

const MAX_INPUT_CHARS = 32_000;
const MAX_MESSAGES = 500;
const HEARTBEAT_MS = 15_000;

const ContentPart = z.looseObject({ type: z.string(), text: z.string().optional() });
const ChatMessage = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.array(ContentPart), z.null()]).optional(),
});
const ChatRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(ChatMessage).min(1).max(MAX_MESSAGES),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  n: z.number().int().nullish(),
  tools: z.array(z.unknown()).nullish(),
  functions: z.array(z.unknown()).nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
});
type ChatRequest = z.infer<typeof ChatRequest>;
type ChatMessage = z.infer<typeof ChatMessage>;

/** An error in OpenAI's shape, with the `param` it is about. */
function invalidRequest(code: string, message: string, param: string | null = null, status = 400): AppError {
  return new AppError({ code, message, category: 'user', status, details: { param } });
}

// ---------------------------------------------------------------------------------------------
// model → agent

/** What `model` names: `<agent id>`, `agent:<agent id>` or `agent:<agent id>@<version>`. */
export function parseModel(model: string): { agentId: string; version?: number } | undefined {
  const match = /^(?:agent:)?([0-9a-f-]{36})(?:@([1-9]\d{0,8}))?$/i.exec(model.trim());
  if (!match || !isId(match[1]!)) return undefined;
  return { agentId: match[1]!.toLowerCase(), ...(match[2] ? { version: Number(match[2]) } : {}) };
}

function modelNotFound(model: string): AppError {
  const message = `The model \`${model}\` does not exist or you do not have access to it. Name an agent: \`<agent id>\`, \`agent:<agent id>\` or \`agent:<agent id>@<version>\` (GET /v1/models lists them).`;
  return invalidRequest('model_not_found', message, 'model', 404);
}

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
      409,
    );
  }
  const version = await getAgentVersion(deps.db, tenantId, agent.id, number);
  if (!version) throw modelNotFound(model);
  return { agent, version, pinned: named.version !== undefined };
}

// ---------------------------------------------------------------------------------------------
// messages → transcript

/** The text of a message; only text parts are supported. */
function textOf(message: ChatMessage, index: number): string {
  const { content } = message;
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  const other = content.find((p) => p.type !== 'text');
  if (other) {
    throw invalidRequest(
      'unsupported_content',
      `Only text content is supported; message ${index} has a \`${other.type}\` part`,
      `messages[${index}].content`,
    );
  }
  return content.map((p) => p.text ?? '').join('');
}

/**
 * Splits the request's messages into the stored history and the new input. System and developer
 * messages are dropped (the agent's configured prompt applies); so are tool messages and tool-call
 * turns, which belong to client-side tools this endpoint does not run. The last message must be the
 * user's.
 *
 * @example
 * splitMessages([{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello' }, { role: 'user', content: 'Book' }]);
 * // { history: [user Hi, assistant Hello], input: 'Book' }
 */
export function splitMessages(list: ChatMessage[]): { history: Message[]; input: string } {
  const turns = list
    .map((message, index) => ({ message, index }))
    .filter(({ message }) => message.role === 'user' || message.role === 'assistant');
  const last = turns.at(-1);
  if (last?.message.role !== 'user' || list.at(-1)?.role !== 'user') {
    throw invalidRequest('invalid_messages', 'The last message must be a user message', 'messages');
  }
  const input = textOf(last.message, last.index).trim();
  if (!input) throw invalidRequest('invalid_messages', 'The last user message has no text', 'messages');
  if (input.length > MAX_INPUT_CHARS) {
    throw invalidRequest('invalid_messages', `The last user message is over ${MAX_INPUT_CHARS} characters`, 'messages');
  }
  const history = turns.slice(0, -1).flatMap(({ message, index }): Message[] => {
    const text = textOf(message, index);
    return text ? [{ role: message.role as 'user' | 'assistant', content: [{ type: 'text', text }] }] : [];
  });
  return { history, input };
}

function refuseClientFeatures(body: ChatRequest): void {
  if ((body.tools?.length ?? 0) > 0 || (body.functions?.length ?? 0) > 0) {
    throw invalidRequest(
      'unsupported_parameter',
      'Client-side tools are not supported: the agent calls its own configured tools',
      body.tools ? 'tools' : 'functions',
    );
  }
  if ((body.n ?? 1) !== 1) throw invalidRequest('unsupported_value', 'Only `n: 1` is supported', 'n');
}

/** The agent's declared context variables, taken from the request's string `metadata`. */
function contextFrom(metadata: Record<string, string> | null | undefined, declared: Array<{ name: string }>) {
  const context: Record<string, unknown> = {};
  for (const { name } of declared) if (metadata && Object.hasOwn(metadata, name)) context[name] = metadata[name];
  return context;
}

// ---------------------------------------------------------------------------------------------
// the run

interface StartedRun {
  run: Run;
  conversationId: string;
}

/**
 * Stores a new conversation (the request's earlier turns, then its new user message) with a queued
 * run, and queues it. Nothing is written when the agent's model or secrets cannot be had, and what
 * was written is removed when the run cannot be queued.
 */
async function startRun(
  deps: ApiDeps,
  tenant: Tenant,
  target: { agent: Agent; version: AgentVersion; pinned: boolean },
  body: ChatRequest,
): Promise<StartedRun> {
  const tenantId = tenant.id;
  const { history, input } = splitMessages(body.messages);
  const { config, hash } = loadAgentConfig(target.version.config);
  const compiled = compileAgent(config, hash);
  // `metadata` is where context comes from here: a system variable in it is refused like in a
  // conversation's context, not silently dropped.
  const [reserved] = reservedContextIssues(body.metadata ?? {}, (name) => `metadata.${name}`);
  if (reserved) throw invalidRequest('invalid_context', reserved.message, reserved.path);
  const context = contextFrom(body.metadata, compiled.contextVariables);
  const issues = contextIssues(compiled.contextVariables, context);
  if (issues.length > 0) {
    const listed = issues.map((i) => i.message).join('; ');
    throw invalidRequest(
      'invalid_context',
      `Pass the agent's context variables in \`metadata\`: ${listed}`,
      'metadata',
    );
  }
  const secrets = await openSecrets(deps.db, deps.secretBox, tenantId, compiled.requiredSecrets);
  const apiKey = compiled.model.apiKeySecret ? secrets[compiled.model.apiKeySecret] : undefined;
  resolveModel({ ...compiled.model, ...(apiKey ? { apiKey } : {}) }, deps.models);
  await assertDailyQuota(deps.db, tenant);

  const conversation = await createConversationWithHistory(deps.db, {
    tenantId,
    agentId: target.agent.id,
    agentVersion: target.pinned ? target.version.version : null,
    context,
    history,
  });
  try {
    const { run } = await createRunForMessage(deps.db, {
      tenantId,
      conversationId: conversation.id,
      agentId: target.agent.id,
      agentVersion: target.version.version,
      traceId: randomBytes(16).toString('hex'),
      message: { role: 'user', content: [{ type: 'text', text: input }] },
      policy: compiled.busyPolicy,
      maxQueuedRuns: compiled.limits.maxQueuedRuns,
    });
    await deps.scheduler.submit(runJobData(run));
    return { run, conversationId: conversation.id };
  } catch (error) {
    await deleteConversation(deps.db, tenantId, conversation.id);
    throw error;
  }
}

/** Everything the assistant said during the run, in order (what the stream sent as deltas). */
function replyText(messages: StoredMessage[]): string {
  return messages
    .filter((m) => m.role === 'assistant')
    .flatMap((m) => m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])))
    .join('');
}

function finishReason(run: Run): 'stop' | 'length' | 'content_filter' {
  const last = run.steps.at(-1)?.finishReason;
  return last === 'length' || last === 'content_filter' ? last : 'stop';
}

/** OpenAI's usage: `prompt_tokens` includes cached tokens, which Agentry counts apart. */
function usageOf(run: Run) {
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = run.usage;
  const prompt = inputTokens + cacheReadTokens + cacheWriteTokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: outputTokens,
    total_tokens: prompt + outputTokens,
    prompt_tokens_details: { cached_tokens: cacheReadTokens },
  };
}

/** A run that did not complete, as an error the client must not retry (tools may have run). */
function runError(run: Run): AppError {
  const base = {
    failed: { status: 502, code: 'run_failed' },
    timed_out: { status: 504, code: 'run_timeout' },
    cancelled: { status: 409, code: 'run_cancelled' },
  }[run.status as 'failed' | 'timed_out' | 'cancelled'] ?? { status: 504, code: 'run_not_finished' };
  const message =
    base.code === 'run_not_finished'
      ? `The agent is still working; the run continues at GET /v1/runs/${run.id}`
      : `The run ended ${run.status}${run.error ? `: ${run.error.code}: ${run.error.message}` : ''} (GET /v1/runs/${run.id})`;
  return new AppError({
    code: run.error?.code ?? base.code,
    message,
    category: 'user',
    status: base.status,
    retryable: false,
    details: { param: null, noRetry: true },
  });
}

interface CompletionMeta {
  id: string;
  created: number;
  model: string;
}

function metaOf(run: Run, model: string): CompletionMeta {
  return { id: run.id, created: Math.floor(run.createdAt.getTime() / 1000), model };
}

async function completion(deps: ApiDeps, c: Context, tenantId: string, started: StartedRun, model: string) {
  const outcome = await waitForRunEnd(deps.events, started.run.id, deps.runWaitMs, deps.runFinishes, {
    orParked: true,
  });
  const run = (await getRun(deps.db, tenantId, started.run.id)) ?? started.run;
  if (outcome === 'timeout' || run.status !== 'completed') throw runError(run);
  const content = replyText(await listRunMessages(deps.db, tenantId, run.id));
  return c.json({
    ...metaOf(run, model),
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        logprobs: null,
        finish_reason: finishReason(run),
      },
    ],
    usage: usageOf(run),
  });
}

/** The run as `chat.completion.chunk`s built from its `text-delta` events, then `[DONE]`. */
function completionStream(deps: ApiDeps, c: Context, tenantId: string, started: StartedRun, body: ChatRequest) {
  const meta = { ...metaOf(started.run, body.model), object: 'chat.completion.chunk' };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    ...meta,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  return streamSSE(c, async (stream) => {
    const controller = new AbortController();
    stream.onAbort(() => controller.abort());
    const heartbeat = setInterval(() => void stream.write(': ping\n\n'), HEARTBEAT_MS);
    const send = (data: unknown) => stream.writeSSE({ data: JSON.stringify(data) });
    let sent = '';
    try {
      await send(chunk({ role: 'assistant', content: '' }));
      try {
        for await (const { event } of deps.events.subscribe(started.run.id, {
          signal: controller.signal,
          endWhenUnavailable: deps.runFinishes !== undefined,
        })) {
          if (event.type === 'text-delta' && typeof event.delta === 'string' && event.delta) {
            await send(chunk({ content: event.delta }));
            sent += event.delta;
          }
          if (event.final) break;
        }
      } catch (error) {
        // The bus failed (Redis down): the run's end comes from the database, and what the stream
        // had not sent of its answer follows in one chunk.
        if (controller.signal.aborted || !deps.runFinishes) throw error;
        const ended = await deps.runFinishes.wait(started.run.id, controller.signal);
        if (!ended) return;
        const text = replyText(await listRunMessages(deps.db, tenantId, started.run.id));
        if (text.startsWith(sent) && text.length > sent.length) await send(chunk({ content: text.slice(sent.length) }));
      }
      if (controller.signal.aborted) return;
      const run = (await getRun(deps.db, tenantId, started.run.id)) ?? started.run;
      if (run.status !== 'completed') return void (await send(openAiErrorBody(runError(run))));
      await send(chunk({}, finishReason(run)));
      if (body.stream_options?.include_usage) await send({ ...meta, choices: [], usage: usageOf(run) });
      await stream.writeSSE({ data: '[DONE]' });
    } finally {
      clearInterval(heartbeat);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// errors

function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** A validation error's issues as one message and the first offending parameter. */
function describeIssues(error: AppError): { message: string; param: string | null } {
  const issues = error.issues ?? [];
  const param = issues[0]?.path.replace(/^\//, '').replaceAll('/', '.') || null;
  const listed = issues.map((i) => `${i.path.replace(/^\//, '').replaceAll('/', '.') || '(body)'}: ${i.message}`);
  return { message: [error.message, ...listed].join('; '), param };
}

/**
 * Any error as OpenAI's error body.
 *
 * @example
 * openAiErrorBody(errors.unauthorized()); // { error: { message, type: 'authentication_error', param: null, code: 'invalid_api_key' } }
 */
export function openAiErrorBody(thrown: unknown) {
  const error = toAppError(thrown);
  const status = error.status === 422 ? 400 : error.status;
  const described = error.issues ? describeIssues(error) : undefined;
  const param = described?.param ?? (typeof error.details?.param === 'string' ? error.details.param : null);
  const code = status === 401 ? 'invalid_api_key' : error.code;
  return { error: { message: described?.message ?? error.message, type: errorType(status), param, code } };
}

/** The OpenAI-compatible routes, whose every error is in OpenAI's shape. */
export const OPENAI_PATHS: readonly string[] = ['/v1/chat/completions', '/v1/models'];

/**
 * Any error as OpenAI's error response (422 answered as 400), logged when it is the server's.
 * Also used by the app's `onError` for what /v1's shared middleware (body limit, admission)
 * refuses on these routes before their own `onError` is reached.
 *
 * @example
 * app.onError((error, c) => openAiErrorResponse(deps, c, error));
 */
export function openAiErrorResponse(deps: Pick<ApiDeps, 'logger'>, c: Context, thrown: unknown): Response {
  const error = toAppError(thrown);
  if (error.status >= 500 && !error.details?.noRetry) {
    deps.logger.error({ err: error.cause ?? error, path: c.req.path, reqId: c.get('requestId') }, error.message);
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (error.retryAfterMs !== undefined) headers['retry-after'] = String(Math.ceil(error.retryAfterMs / 1000));
  // A run that started and then failed may have called tools: an SDK retry would repeat them.
  if (error.details?.noRetry) headers['x-should-retry'] = 'false';
  const status = error.status === 422 ? 400 : error.status;
  return new Response(JSON.stringify(openAiErrorBody(error)), { status, headers });
}

// ---------------------------------------------------------------------------------------------
// routes

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
export function chatCompletionRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.onError((error, c) => openAiErrorResponse(deps, c, error));
  // The same key check, rate limit and daily quota as the tenant-scoped routes, inside this app's onError.
  const guards = [
    requireTenantKey(deps.db, undefined, { cache: deps.apiKeyCache }),
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
    const started = await startRun(deps, c.var.tenant, target, body);
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
