import { AssignBody, HandoffBody, HumanMessageBody, NoteBody, ReleaseBody } from '@agentry/contract/schemas';
import {
  activeRuns,
  type Conversation,
  type ConversationActor,
  type ConversationEvent,
  type Db,
  getAgentWithVersion,
  getConversation,
  isId,
  listConversationEvents,
  listMessages,
  memberDisplayName,
} from '@agentry/db';
import { errors } from '@agentry/errors';
import { textOf } from '@agentry/llm';
import {
  addNote,
  assignConversation,
  conversationStreamKey,
  handoffSettings,
  type Member,
  type RunService,
  releaseConversation,
  requestHandoff,
  resolveConversation,
  sendHumanMessage,
  visitorStreamEvent,
} from '@agentry/run-service';
import { type Context, Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { type AuthVariables, assertAgentAllowed, assertEndUserAllowed, type Principal } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { streamLiveEvents } from '../http/live-stream.ts';
import { doc, type ParamDoc, ref, SSE_SCHEMA } from '../http/openapi.ts';
import { acquireEventStream } from '../http/stream-slots.ts';
import { handoffView, messageView } from '../http/views.ts';

type Ctx = Context<{ Variables: AuthVariables }>;

const conversationId: Record<string, ParamDoc> = {
  id: { description: 'The conversation id', resource: 'conversation' },
};

/** The visitor's last messages, when nobody wrote a summary (a visitor's button, an API call without one). */
const FALLBACK_SUMMARY_MESSAGES = 3;

/**
 * Who acts: a dashboard user (with the display name their replies carry), an API key, or a visitor.
 *
 * @example
 * const actor = await actorOf(deps.db, c);
 */
export async function actorOf(db: Db, c: Ctx): Promise<ConversationActor> {
  const { principal, tenant } = c.var;
  if (principal.user) {
    const name = (await memberDisplayName(db, tenant.id, principal.user.id)) ?? 'Team';
    return { type: 'user', id: principal.user.id, name, email: principal.user.email };
  }
  if (principal.kind === 'publishable') return { type: 'visitor' };
  return { type: 'api_key', id: c.var.apiKeyId ?? null, name: null };
}

/** A member named in a request (`user_id`), or 404 `member_not_found`. */
async function namedMember(db: Db, tenantId: string, userId: string): Promise<Member> {
  const name = isId(userId) ? await memberDisplayName(db, tenantId, userId) : undefined;
  if (!name) throw errors.notFound('member', userId);
  return { userId, name };
}

function needsMember(path: string): never {
  throw errors.validation('An API key acts for a member: name one', [
    { path, code: 'required', message: 'Give the member’s user id (a dashboard user acts for themselves)' },
  ]);
}

async function loadConversation(db: Db, principal: Principal, tenantId: string, id: string): Promise<Conversation> {
  const conversation = isId(id) ? await getConversation(db, tenantId, id) : undefined;
  return assertVisible(principal, conversation, id);
}

function assertVisible(principal: Principal, conversation: Conversation | undefined, id: string): Conversation {
  if (!conversation) throw errors.notFound('conversation', id);
  assertAgentAllowed(principal, conversation.agentId, 'conversation', id);
  assertEndUserAllowed(principal, conversation.context, id);
  return conversation;
}

export function conversationEventView(event: ConversationEvent) {
  return {
    id: event.id,
    object: 'conversation_event' as const,
    kind: event.kind,
    from: event.fromMode,
    to: event.toMode,
    actor: { type: event.actorType, id: event.actorId, name: event.actorName },
    assigned_to: event.assignedTo,
    note: event.note,
    created_at: event.createdAt.toISOString(),
  };
}

/**
 * Issue 21: handing a conversation to people and back. Members (editors and owners; viewers read)
 * and secret keys claim or assign it, reply (streamed to the visitor at once), write internal
 * notes, release it to the model with a note for it, or resolve it; visitors ask for a person
 * (when the agent offers the button) and follow people's replies.
 */
export function handoffRoutes(deps: ApiDeps, runs: RunService) {
  const app = new Hono<{ Variables: AuthVariables }>();
  const handoffDeps = { db: deps.db, events: deps.events };

  app.post(
    '/:id/handoff',
    doc({
      operationId: 'requestHandoff',
      tag: 'Inbox',
      summary: 'Ask for a person to take the conversation over',
      description:
        'The conversation goes to `pending_human` and shows in the inbox; the model is not called while people hold it. Visitors (publishable keys) may ask only when the agent’s `handoff.visitor_button` is on, and only when someone is available (business hours, a member marked available): otherwise `status: unavailable` with the agent’s `unavailable_message`, and the model keeps answering. Secret keys and members may `force` it past availability. Webhook `conversation.handoff_requested`.',
      auth: 'chat',
      path: conversationId,
      body: { schema: HandoffBody, example: { reason: 'The customer wants a refund above the limit' } },
      responses: { 200: { description: 'What happened', schema: ref('HandoffResult') } },
      errors: ['conversation_not_found', 'forbidden', 'agent_not_published'],
    }),
  );
  app.post('/:id/handoff', async (c) => {
    const { tenant, principal } = c.var;
    const conversation = await loadConversation(deps.db, principal, tenant.id, c.req.param('id'));
    const body = await readJson(c, HandoffBody);
    const visitor = principal.kind === 'publishable';
    const found = await getAgentWithVersion(
      deps.db,
      tenant.id,
      conversation.agentId,
      conversation.agentVersion ?? undefined,
    );
    const config = (found?.version?.config as { handoff?: Parameters<typeof handoffSettings>[0] } | undefined)?.handoff;
    if (visitor && !config?.visitor_button) {
      throw errors.of({
        code: 'forbidden',
        message: 'This agent does not offer visitors a person (handoff.visitor_button)',
        category: 'user',
      });
    }
    const settings = handoffSettings(config);
    const outcome = await requestHandoff(handoffDeps, {
      tenantId: tenant.id,
      conversationId: conversation.id,
      source: visitor ? 'visitor' : principal.user ? 'member' : 'api',
      reason: body.reason || (visitor ? 'The visitor asked for a person' : 'Handed over'),
      summary: body.summary || (await fallbackSummary(deps.db, tenant.id, conversation.id)),
      actor: await actorOf(deps.db, c),
      checkAvailability: visitor || body.force !== true,
    });
    return c.json({
      object: 'handoff',
      conversation_id: conversation.id,
      status: outcome.status,
      reason: outcome.status === 'unavailable' ? outcome.reason : null,
      message: outcome.status === 'unavailable' ? settings.unavailableMessage : settings.waitingMessage,
      state: handoffView(outcome.conversation),
    });
  });

  app.post(
    '/:id/assign',
    doc({
      operationId: 'assignConversation',
      tag: 'Inbox',
      summary: 'Claim a conversation, take it over from the model, or assign it to a member',
      description:
        'Without `user_id` the signed-in member claims it (409 `conversation_assigned_elsewhere` when another member holds it); with one, it goes to that member (reassigning it). A conversation the model is answering is taken over: its active runs are cancelled. Mode `human`; the visitor’s stream gets `mode` with the member’s name.',
      auth: 'tenant',
      path: conversationId,
      body: { schema: AssignBody, example: {} },
      responses: { 200: { description: 'The conversation’s handoff state', schema: ref('HandoffState') } },
      errors: ['conversation_not_found', 'member_not_found', 'conversation_assigned_elsewhere', 'validation_failed'],
    }),
  );
  app.post('/:id/assign', async (c) => {
    const { tenant, principal } = c.var;
    const conversation = await loadConversation(deps.db, principal, tenant.id, c.req.param('id'));
    const body = await readJson(c, AssignBody);
    const actor = await actorOf(deps.db, c);
    const assignee = body.user_id
      ? await namedMember(deps.db, tenant.id, body.user_id)
      : principal.user
        ? { userId: principal.user.id, name: actor.name ?? 'Team' }
        : needsMember('/user_id');
    const { before, conversation: after } = await assignConversation(handoffDeps, {
      tenantId: tenant.id,
      conversationId: conversation.id,
      assignee,
      actor,
      claim: assignee.userId === principal.user?.id,
      note: body.note ?? null,
    });
    if (before.mode === 'bot' || before.mode === 'resolved') await stopActiveRuns(deps, runs, after);
    return c.json(handoffView(after));
  });

  app.post(
    '/:id/human-messages',
    doc({
      operationId: 'sendHumanMessage',
      tag: 'Inbox',
      summary: 'Reply to the visitor as a person',
      description:
        'Only while a member holds the conversation (mode `human`): the member holding it, or a secret key (for that member; `author_name` changes the name shown). Stored as an assistant message with `author` (the model reads it later, with the name), pushed at once to the visitor’s `GET /v1/conversations/{id}/events` as `human-message`. Webhook `conversation.human_message`.',
      auth: 'tenant',
      path: conversationId,
      body: {
        schema: HumanMessageBody,
        example: { content: 'Hi, I am Ana from the team. Let me look at your order.' },
      },
      responses: { 201: { description: 'The stored message', schema: ref('Message') } },
      errors: ['conversation_not_found', 'conversation_not_waiting', 'conversation_assigned_elsewhere'],
    }),
  );
  app.post('/:id/human-messages', async (c) => {
    const { tenant, principal } = c.var;
    const conversation = await loadConversation(deps.db, principal, tenant.id, c.req.param('id'));
    const body = await readJson(c, HumanMessageBody);
    const actor = await actorOf(deps.db, c);
    const holderName = conversation.assignedTo
      ? await memberDisplayName(deps.db, tenant.id, conversation.assignedTo)
      : undefined;
    const author: Member = principal.user
      ? { userId: principal.user.id, name: actor.name ?? 'Team' }
      : { userId: conversation.assignedTo ?? '', name: body.author_name ?? holderName ?? 'Team' };
    const { message } = await sendHumanMessage(handoffDeps, {
      tenantId: tenant.id,
      conversationId: conversation.id,
      author,
      asHolder: !principal.user,
      text: body.content,
    });
    return c.json(messageView(message), 201);
  });

  app.post(
    '/:id/notes',
    doc({
      operationId: 'addConversationNote',
      tag: 'Inbox',
      summary: 'Add an internal note (members only: never shown to the visitor or the model)',
      auth: 'tenant',
      path: conversationId,
      body: { schema: NoteBody, example: { content: 'Customer called before; refund approved by Sam.' } },
      responses: { 201: { description: 'The note', schema: ref('ConversationEvent') } },
      errors: ['conversation_not_found'],
    }),
  );
  app.post('/:id/notes', async (c) => {
    const { tenant, principal } = c.var;
    const conversation = await loadConversation(deps.db, principal, tenant.id, c.req.param('id'));
    const body = await readJson(c, NoteBody);
    const event = await addNote(handoffDeps, {
      tenantId: tenant.id,
      conversationId: conversation.id,
      actor: await actorOf(deps.db, c),
      text: body.content,
    });
    return c.json(conversationEventView(event), 201);
  });

  app.get(
    '/:id/handoff-history',
    doc({
      operationId: 'listConversationEvents',
      tag: 'Inbox',
      summary: 'A conversation’s mode changes and internal notes, oldest first',
      auth: 'tenant',
      path: conversationId,
      responses: { 200: { description: 'Transitions and notes', schema: ref('ConversationEventList') } },
      errors: ['conversation_not_found'],
    }),
  );
  app.get('/:id/handoff-history', async (c) => {
    const { tenant, principal } = c.var;
    const conversation = await loadConversation(deps.db, principal, tenant.id, c.req.param('id'));
    const rows = await listConversationEvents(deps.db, tenant.id, conversation.id);
    return c.json({ object: 'list', data: rows.map(conversationEventView) });
  });

  for (const [path, operationId, summary, description] of [
    [
      'release',
      'releaseConversation',
      'Give the conversation back to the model',
      'From `pending_human` or `human` to `bot` (409 `conversation_not_waiting` otherwise). `note` is for the model: it reads it on its next run (the visitor never sees it).',
    ],
    [
      'resolve',
      'resolveConversation',
      'Close the conversation',
      'From any mode to `resolved`; the visitor’s next message gives it back to the model. Webhook `conversation.resolved`.',
    ],
  ] as const) {
    app.post(
      `/:id/${path}`,
      doc({
        operationId,
        tag: 'Inbox',
        summary,
        description,
        auth: 'tenant',
        path: conversationId,
        body: {
          schema: ReleaseBody,
          example: path === 'release' ? { note: 'Refund approved; confirm it to the customer.' } : {},
        },
        responses: { 200: { description: 'The conversation’s handoff state', schema: ref('HandoffState') } },
        errors:
          path === 'release' ? ['conversation_not_found', 'conversation_not_waiting'] : ['conversation_not_found'],
      }),
    );
    app.post(`/:id/${path}`, async (c) => {
      const { tenant, principal } = c.var;
      const conversation = await loadConversation(deps.db, principal, tenant.id, c.req.param('id'));
      const body = await readJson(c, ReleaseBody);
      const input = {
        tenantId: tenant.id,
        conversationId: conversation.id,
        actor: await actorOf(deps.db, c),
        note: body.note ?? null,
      };
      const after =
        path === 'release'
          ? await releaseConversation(handoffDeps, input)
          : await resolveConversation(handoffDeps, input);
      if (path === 'resolve') await stopActiveRuns(deps, runs, after);
      return c.json(handoffView(after));
    });
  }

  app.get(
    '/:id/events',
    doc({
      operationId: 'followConversation',
      tag: 'Inbox',
      summary: 'Follow people’s part of a conversation live (SSE)',
      description:
        'Events from now on (resume with `Last-Event-ID`): `mode` (the mode changed; visitors get `{ mode, assigned_name }`), `human-message` (a member’s reply, `message.author.name`). Members and secret keys also get `visitor-message` (the visitor wrote while people hold it) and `note`. The model’s answers still stream on `GET /v1/runs/{id}/events`.',
      auth: 'chat',
      path: conversationId,
      responses: { 200: { description: 'The events', schema: SSE_SCHEMA, contentType: 'text/event-stream' } },
      errors: ['conversation_not_found', 'too_many_streams', 'too_many_streams_for_visitor'],
    }),
  );
  app.get('/:id/events', async (c) => {
    const { tenant, principal } = c.var;
    const conversation = await loadConversation(deps.db, principal, tenant.id, c.req.param('id'));
    const release = await acquireEventStream(c, deps);
    const visitor = principal.kind === 'publishable';
    return streamLiveEvents(
      c,
      deps.events,
      conversationStreamKey(conversation.id),
      release,
      (event) => (visitor ? visitorStreamEvent(event) : event),
      deps.liveStreams,
    );
  });

  return app;
}

/** The visitor's last few messages, as a summary for a person when nobody wrote one. */
async function fallbackSummary(db: Db, tenantId: string, id: string): Promise<string> {
  const messages = await listMessages(db, tenantId, id);
  const said = messages
    .filter((m) => m.role === 'user')
    .slice(-FALLBACK_SUMMARY_MESSAGES)
    .map((m) => textOf(m).slice(0, 300));
  return said.length > 0 ? `The visitor wrote: ${said.map((s) => `“${s}”`).join(' ')}` : '';
}

/**
 * A take-over or a resolution stops what the model is doing: queued and waiting runs end at once
 * (cancelled), running ones are told to stop (their worker writes `cancelled`).
 */
async function stopActiveRuns(deps: ApiDeps, runs: RunService, conversation: Conversation): Promise<void> {
  for (const run of await activeRuns(deps.db, conversation.tenantId, conversation.id)) {
    await runs.cancel(run, { startNext: false, bestEffort: true });
  }
}
