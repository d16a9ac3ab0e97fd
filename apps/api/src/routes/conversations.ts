import { contextIssues } from '@agentry/config';
import { RUN_STATUSES } from '@agentry/contract';
import { NewConversationBody as NewConversation, NewMessageBody as NewMessage } from '@agentry/contract/schemas';
import {
  type Conversation,
  conversationSummaries,
  createConversation,
  type Db,
  deleteConversation,
  getAgentWithVersion,
  getConversation,
  getRun,
  isId,
  listConversations,
  listMessages,
  listRunMessages,
  type Run,
  withTenantScope,
} from '@agentry/db';
import { errors } from '@agentry/errors';
import { latestFlowState } from '@agentry/flows';
import { runJobData } from '@agentry/queue';
import { compileVersion, type RunService } from '@agentry/run-service';
import { type Context, Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { audit } from '../http/audit.ts';
import { type AuthVariables, assertAgentAllowed, assertEndUserAllowed, type Principal } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { endUserFor } from '../http/end-user.ts';
import { createdBefore, idempotencyHold } from '../http/idempotency.ts';
import { doc, EXAMPLE_AGENT_ID, PAGE_QUERY, type ParamDoc, ref, SSE_SCHEMA } from '../http/openapi.ts';
import { pageOf, readPage } from '../http/pagination.ts';
import { streamRunEvents } from '../http/run-stream.ts';
import { waitForRunEnd } from '../http/run-wait.ts';
import { acquireEventStream } from '../http/stream-slots.ts';
import {
  conversationView,
  forPrincipal,
  handoffView,
  heldMessageView,
  messageView,
  runView,
  visibleToVisitor,
  visitorMessageView,
} from '../http/views.ts';
import { readConversationFilters } from './conversation-filters.ts';

const conversationId: Record<string, ParamDoc> = {
  id: { description: 'The conversation id', resource: 'conversation' },
};
const RUN_HEADERS = { Location: 'The run: /v1/runs/{id} (202 and streams)' };
async function loadConversation(db: Db, principal: Principal, tenantId: string, id: string) {
  const conversation = isId(id) ? await getConversation(db, tenantId, id) : undefined;
  return assertConversationAllowed(principal, conversation, id);
}

/** 404 for a missing conversation, and for one the principal may not see (publishable keys, end users). */
function assertConversationAllowed(principal: Principal, conversation: Conversation | undefined, id: string) {
  if (!conversation) throw errors.notFound('conversation', id);
  assertAgentAllowed(principal, conversation.agentId, 'conversation', id);
  assertEndUserAllowed(principal, conversation.context, id);
  return conversation;
}

/** Conversations, their messages, and the runs a message starts. */
export function conversationRoutes(deps: ApiDeps, runs: RunService) {
  const app = new Hono<{ Variables: AuthVariables }>();

  app.post(
    '/',
    doc({
      operationId: 'createConversation',
      tag: 'Conversations',
      summary: 'Start a conversation with an agent',
      description:
        'Follows the agent’s published version unless `agent_version` pins one. `context` must match the agent’s declared context variables and may not hold the system ones (`tenantId`, `agentId`, `conversationId`, `dialogId`, `chatbotId`: 422 `invalid_context`, one `reserved_context_variable` error per name); with a publishable key, `userId` comes only from a verified `X-End-User-Token`.',
      auth: 'chat',
      body: {
        schema: NewConversation,
        example: { agent_id: EXAMPLE_AGENT_ID },
      },
      responses: { 201: { description: 'The conversation', schema: ref('Conversation') } },
      errors: ['agent_not_found', 'agent_version_not_found', 'agent_not_published', 'invalid_context'],
    }),
  );
  app.post('/', async (c) => {
    const body = await readJson(c, NewConversation);
    const tenantId = c.var.tenant.id;
    // A retry of a request that died after creating it: the conversation it created.
    const earlier = createdBefore(c, 'conversation');
    const existing = earlier ? await getConversation(deps.db, tenantId, earlier) : undefined;
    if (existing) return c.json(conversationView(assertConversationAllowed(c.var.principal, existing, earlier!)), 201);
    // One tenant-scoped transaction: the agent with the version to use (one statement), the
    // checks, the insert; a failed check rolls back before anything is written.
    const conversation = await withTenantScope(deps.db, tenantId, async (db, commitAhead) => {
      const found = isId(body.agent_id)
        ? await getAgentWithVersion(db, tenantId, body.agent_id, body.agent_version)
        : undefined;
      if (!found) throw errors.notFound('agent', body.agent_id);
      const { agent, version } = found;
      assertAgentAllowed(c.var.principal, agent.id, 'agent', body.agent_id);
      if (body.agent_version !== undefined && !version) {
        throw errors.notFound('agent_version', String(body.agent_version));
      }
      if (!version) {
        throw errors.conflict(
          'agent_not_published',
          'The agent has no published version; publish one or name a version',
        );
      }
      // Paths point into the request body, as every other field issue does.
      const issues = contextIssues(compileVersion(version).agent.contextVariables, body.context ?? {}).map((issue) => ({
        ...issue,
        path: `/context${issue.path}`,
      }));
      if (issues.length > 0)
        throw errors.validation('The conversation context does not match the agent', issues, 'invalid_context');
      const created = createConversation(
        db,
        {
          tenantId,
          agentId: agent.id,
          agentVersion: body.agent_version ?? null,
          context: trustedContext(c.var.principal, body.context ?? {}),
        },
        idempotencyHold(c),
      );
      // The insert decides nothing more: its COMMIT goes along (one round trip instead of two).
      commitAhead();
      return created;
    });
    return c.json(conversationView(conversation), 201);
  });

  app.get(
    '/',
    doc({
      operationId: 'listConversations',
      tag: 'Conversations',
      summary: 'List conversations, newest first',
      auth: 'tenant',
      query: {
        ...PAGE_QUERY,
        agent_id: {
          description: 'Only this agent’s conversations',
          resource: 'agent',
          schema: { type: 'string', format: 'uuid' },
        },
        q: { description: 'Text in any message (at most 200 characters)', schema: { type: 'string', maxLength: 200 } },
        from: { description: 'Created on or after this UTC day', schema: { type: 'string', format: 'date' } },
        to: { description: 'Created on or before this UTC day', schema: { type: 'string', format: 'date' } },
        status: {
          description: 'The latest run’s status',
          schema: { enum: [...RUN_STATUSES] },
        },
        has_error: { description: 'Whether any run failed', schema: { enum: ['true', 'false'] } },
      },
      responses: { 200: { description: 'A page of conversations', schema: ref('ConversationList') } },
      errors: ['invalid_query'],
    }),
  );
  app.get('/', async (c) => {
    const page = readPage(c);
    const filters = readConversationFilters(c.req.query());
    const agentId = c.req.query('agent_id');
    if (agentId !== undefined && !isId(agentId)) return c.json(pageOf([], page, conversationView));
    const rows = await listConversations(deps.db, c.var.tenant.id, {
      ...page,
      limit: page.limit + 1,
      ...(agentId ? { agentId } : {}),
      ...filters,
    });
    // Each row also says how its runs went and what it was about (one query for the page).
    const summaries = await conversationSummaries(
      deps.db,
      c.var.tenant.id,
      rows.map((r) => r.id),
    );
    return c.json(
      pageOf(rows, page, (row) => ({
        ...conversationView(row),
        last_run_status: summaries.get(row.id)?.lastRunStatus ?? null,
        has_error: summaries.get(row.id)?.hasError ?? false,
        preview: summaries.get(row.id)?.preview ?? null,
        end_user_id: endUserIdOf(row),
      })),
    );
  });

  app.get(
    '/:id',
    doc({
      operationId: 'getConversation',
      tag: 'Conversations',
      summary: 'A conversation and its transcript',
      description: 'Publishable keys see text parts only (no tool calls or results).',
      auth: 'chat',
      path: conversationId,
      responses: { 200: { description: 'The conversation with its messages', schema: ref('ConversationDetail') } },
      errors: ['conversation_not_found'],
    }),
  );
  app.get('/:id', async (c) => {
    const conversation = await loadConversation(deps.db, c.var.principal, c.var.tenant.id, c.req.param('id'));
    const messages = await listMessages(deps.db, c.var.tenant.id, conversation.id);
    const visitor = c.var.principal.kind === 'publishable';
    // The buttons of a flow's pending question, which a reloaded widget shows again.
    const flow = latestFlowState(messages);
    const quickReplies = flow?.status === 'active' ? flow.quick_replies : undefined;
    return c.json({
      ...conversationView(conversation),
      messages: visitor ? messages.filter(visibleToVisitor).map(visitorMessageView) : messages.map(messageView),
      ...(visitor ? {} : { handoff: handoffView(conversation) }),
      ...(quickReplies?.length ? { quick_replies: quickReplies } : {}),
    });
  });

  app.delete(
    '/:id',
    doc({
      operationId: 'deleteConversation',
      tag: 'Conversations',
      summary: 'Delete a conversation with its messages and runs',
      auth: 'tenant',
      path: conversationId,
      responses: { 204: { description: 'Deleted' } },
      errors: ['conversation_not_found'],
    }),
  );
  app.delete('/:id', async (c) => {
    const id = c.req.param('id');
    if (!isId(id) || !(await deleteConversation(deps.db, c.var.tenant.id, id)))
      throw errors.notFound('conversation', id);
    await audit(deps.db, c, 'conversation.deleted', { type: 'conversation', id });
    return c.body(null, 204);
  });

  app.post(
    '/:id/messages',
    doc({
      operationId: 'sendMessage',
      tag: 'Conversations',
      summary: 'Send a message: queues a run and answers as asked',
      description:
        'By default waits for the run (up to `RUN_WAIT_MS`, then 202 with `Location`); `Accept: text/event-stream` streams its events; `Prefer: respond-async` answers 202 at once. A message while the previous run is active follows the agent’s `busy_policy`.',
      auth: 'chat',
      path: conversationId,
      headers: {
        Accept: { description: '`text/event-stream` to stream the run’s events' },
        Prefer: { description: '`respond-async` to answer 202 at once' },
      },
      body: { schema: NewMessage, example: { content: 'I would like to book a table for two, tomorrow 7 pm' } },
      responses: {
        200: {
          description: 'The finished run; with `Accept: text/event-stream`, the run’s events as they happen',
          schema: ref('Run'),
          also: { 'text/event-stream': SSE_SCHEMA },
        },
        202: {
          description:
            'The run is still going: follow `Location`. Or, while people hold the conversation or are asked to (`mode` `pending_human` / `human`), a `HeldMessage`: the message was stored for them, no run started; their replies arrive on `GET /v1/conversations/{id}/events`.',
          schema: { oneOf: [ref('Run'), ref('HeldMessage')] },
          headers: RUN_HEADERS,
        },
      },
      errors: [
        'conversation_not_found',
        'agent_not_published',
        'conversation_busy',
        'conversation_queue_full',
        'missing_secret',
        'quota_exceeded',
        'model_not_configured',
        'queue_unavailable',
        'secrets_not_configured',
        'too_many_streams',
        'too_many_streams_for_visitor',
      ],
    }),
  );
  app.post('/:id/messages', async (c) => {
    const { tenant, principal } = c.var;
    const id = c.req.param('id');
    if (!isId(id)) assertConversationAllowed(principal, undefined, id);
    // Buffered before the transaction (a slow upload holds no connection and no lock); parsed and
    // checked inside it, after the conversation, so an unknown one still answers 404 before a bad body.
    await c.req.arrayBuffer().catch(() => undefined);
    const stream = wantsStream(c.req.header('accept'));
    // A retry of a request that died after storing its message: that message's run, not a second one.
    const earlier = createdBefore(c, 'run');
    const existing = earlier ? await getRun(deps.db, tenant.id, earlier) : undefined;
    if (existing) {
      await loadConversation(deps.db, principal, tenant.id, id);
      return resumeRun(c, existing, stream);
    }
    let release: (() => void) | undefined;
    try {
      // The run service checks and writes in one transaction, then queues (or removes what it wrote).
      const taken = await runs.startMessageRun({
        tenant,
        conversationId: id,
        idempotency: idempotencyHold(c),
        endUser: (conversation) => endUserFor(principal, conversation),
        authorize: (conversation) => assertConversationAllowed(principal, conversation, id),
        message: async () => {
          const body = await readJson(c, NewMessage);
          return { role: 'user', content: [{ type: 'text', text: body.content }] };
        },
        // A stream is taken before anything is written: at the cap the answer is 503 and no run exists.
        beforeWrite: async () => {
          release = stream ? await acquireEventStream(c, deps) : undefined;
        },
      });
      // People hold the conversation (issue 21): the message is theirs, no run started.
      if (!taken.run) return c.json(heldMessageView(taken.conversation, taken.held), 202);
      return await answerRun(c, taken.run, release);
    } catch (error) {
      release?.();
      throw error;
    }
  });

  /**
   * Answers a retry with the run its key's first request created before it died: queued again if
   * it never left `queued` (that request may have died before queueing it; the scheduler keeps one
   * place per run, so a run already parked or dispatched is not duplicated), then answered as the
   * caller asks.
   */
  async function resumeRun(c: Context<{ Variables: AuthVariables }>, run: Run, stream: boolean): Promise<Response> {
    if (run.status === 'queued') await deps.scheduler.submit(runJobData(run));
    const release = stream ? await acquireEventStream(c, deps) : undefined;
    try {
      return await answerRun(c, run, release);
    } catch (error) {
      release?.();
      throw error;
    }
  }

  /** Answers with a queued run: its events (`release`: the stream slot taken), 202 at once, or when it ends. */
  async function answerRun(
    c: Context<{ Variables: AuthVariables }>,
    run: Run,
    release: (() => void) | undefined,
  ): Promise<Response> {
    const tenantId = c.var.tenant.id;
    if (release) {
      c.header('location', `/v1/runs/${run.id}`);
      return streamRunEvents(c, deps.events, run, release, deps);
    }
    if (/\brespond-async\b/i.test(c.req.header('prefer') ?? '')) {
      c.header('location', `/v1/runs/${run.id}`);
      c.header('preference-applied', 'respond-async');
      return c.json(forPrincipal(c.var.principal, runView(run, [])), 202);
    }
    const outcome = await waitForRunEnd(deps.events, run.id, deps.runWaitMs, deps.runFinishes, { orParked: true });
    const { stored, written } = await withTenantScope(deps.db, tenantId, async (db) => {
      const stored = await getRun(db, tenantId, run.id);
      return { stored, written: stored ? await listRunMessages(db, tenantId, run.id) : [] };
    });
    if (!stored) throw errors.notFound('run', run.id);
    const view = forPrincipal(c.var.principal, runView(stored, written));
    if (outcome === 'timeout' || stored.status === 'queued' || stored.status === 'running') {
      c.header('location', `/v1/runs/${run.id}`);
      return c.json(view, 202);
    }
    return c.json(view, 200);
  }

  return app;
}

function wantsStream(accept: string | undefined): boolean {
  return /\btext\/event-stream\b/i.test(accept ?? '');
}

/**
 * `userId` is trusted only from a verified end-user token (visitors) or a secret key (the
 * tenant's servers); a visitor cannot claim to be someone by putting it in the context.
 */
/**
 * Who the visitor is, as far as the conversation knows: its `context.userId` (a verified end user's
 * `sub` for publishable keys, or what the tenant's server passed). Anonymous visitors have none.
 */
function endUserIdOf(conversation: Conversation): string | null {
  const id = conversation.context.userId;
  return typeof id === 'string' && id ? id : null;
}

function trustedContext(principal: Principal, context: Record<string, unknown>): Record<string, unknown> {
  if (principal.kind !== 'publishable') return context;
  const { userId: _claimed, ...rest } = context;
  return principal.endUserId ? { ...rest, userId: principal.endUserId } : rest;
}
