// Issue 21: people take conversations over from the model and give them back. Every change of a
// conversation's mode goes through here (the model's tool and flows in the worker, the API's routes),
// each in one transaction under the conversation's row lock: the row, the transition record, the
// audit event and the webhook deliveries commit together; the live events follow the commit.
import type { HandoffConfig } from '@agentry/config';
import {
  addConversationNote,
  appendConversationMessage,
  type Conversation,
  type ConversationActor,
  type ConversationEvent,
  type ConversationMode,
  changeConversationMode,
  countAvailableMembers,
  type Db,
  getBusinessHours,
  type HandoffInfo,
  heldByPeople,
  lockConversationRow,
  recordConversationWebhooks,
  type StoredMessage,
  type Tx,
  withTenantScope,
} from '@agentry/db';
import { errors } from '@agentry/errors';
import type { RunEventBus } from '@agentry/run-events';
import { isWithinBusinessHours } from './business-hours.ts';
import { announce, conversationSummary, modeEvent, streamedMessage } from './handoff-events.ts';

export interface HandoffDeps {
  db: Db;
  /** Where the inbox and conversation events go; omitted = none. */
  events?: RunEventBus | undefined;
  /** The clock business hours are read against (tests fix it). */
  now?: () => Date;
}

/** The texts and behaviour an agent's `handoff` block sets, with their defaults. */
export interface HandoffSettings {
  waitingMessage: string;
  unavailableMessage: string;
  whenUnavailable: 'continue' | 'collect_contact';
}

/**
 * The agent's handoff settings with the schema's defaults filled in.
 *
 * @example
 * const settings = handoffSettings(agent.config.handoff);
 */
export function handoffSettings(config: HandoffConfig | undefined): HandoffSettings {
  return {
    waitingMessage:
      config?.waiting_message ?? 'I have asked a person from our team to join; they will answer here shortly.',
    unavailableMessage:
      config?.unavailable_message ?? 'Nobody from our team is available right now, so I will keep helping you myself.',
    whenUnavailable: config?.when_unavailable ?? 'continue',
  };
}

/** Why nobody can take a handoff now. */
export type UnavailableReason = 'outside_business_hours' | 'no_member_available';

/**
 * Whether people can take a handoff now: inside the tenant's business hours and with at least one
 * owner or editor marked available.
 *
 * @example
 * const why = await unavailableReason(tx, tenantId, new Date()); // undefined: someone can take it
 */
export async function unavailableReason(
  tx: Tx | Db,
  tenantId: string,
  now: Date,
): Promise<UnavailableReason | undefined> {
  if (!isWithinBusinessHours(await getBusinessHours(tx, tenantId), now)) return 'outside_business_hours';
  if ((await countAvailableMembers(tx, tenantId)) === 0) return 'no_member_available';
  return undefined;
}

export interface HandoffRequest {
  tenantId: string;
  conversationId: string;
  source: HandoffInfo['source'];
  reason: string;
  summary: string;
  actor: ConversationActor;
  /** Refuse when nobody is available (the model, flows, visitors); API callers may skip the check. */
  checkAvailability: boolean;
  /** Throws to refuse the caller (e.g. a visitor's key that may not see the conversation). */
  authorize?: (conversation: Conversation | undefined) => void;
}

export type HandoffOutcome =
  | { status: 'pending_human'; conversation: Conversation }
  | { status: 'already'; conversation: Conversation }
  | { status: 'unavailable'; reason: UnavailableReason; conversation: Conversation };

/**
 * Asks for a person: the conversation goes to `pending_human` with the reason and the summary for
 * whoever takes it, unless people hold it already (`already`) or nobody is available
 * (`unavailable`: the mode stays, the audit log says so). Webhook `conversation.handoff_requested`.
 *
 * @example
 * const outcome = await requestHandoff(deps, { tenantId, conversationId, source: 'model', reason, summary,
 *   actor: { type: 'model' }, checkAvailability: true });
 */
export async function requestHandoff(deps: HandoffDeps, request: HandoffRequest): Promise<HandoffOutcome> {
  const now = deps.now?.() ?? new Date();
  const result = await withTenantScope(deps.db, request.tenantId, async (tx) => {
    const locked = await lockConversationRow(tx, request.tenantId, request.conversationId);
    request.authorize?.(locked);
    if (!locked) throw errors.notFound('conversation', request.conversationId);
    if (heldByPeople(locked.mode)) return { status: 'already' as const, conversation: locked };
    const why = request.checkAvailability ? await unavailableReason(tx, request.tenantId, now) : undefined;
    if (why) return { status: 'unavailable' as const, reason: why, conversation: locked };
    const handoff: HandoffInfo = {
      source: request.source,
      reason: request.reason,
      summary: request.summary,
      requested_at: now.toISOString(),
    };
    const changed = await changeConversationMode(tx, locked, { to: 'pending_human', actor: request.actor, handoff });
    await recordConversationWebhooks(tx, changed.conversation, 'conversation.handoff_requested', {
      ...conversationSummary(changed.conversation),
      reason: handoff.reason,
      summary: handoff.summary,
      source: handoff.source,
    });
    return { status: 'pending_human' as const, conversation: changed.conversation, event: changed.event };
  });
  if (result.status === 'pending_human') {
    await announce(deps.events, result.conversation, modeEvent(result.conversation, result.event, null));
    return { status: 'pending_human', conversation: result.conversation };
  }
  return result;
}

/** A member acting in the inbox (the assignee, the author of a reply), or an API key naming one. */
export interface Member {
  userId: string;
  name: string;
}

/**
 * Gives the conversation to a member (mode `human`): a claim (the member is the actor) of a
 * waiting conversation, a take-over of one the model is answering, or an assignment by someone
 * else. A claim of a conversation another member holds is refused (409
 * `conversation_assigned_elsewhere`); an assignment to someone else reassigns it. Returns the
 * conversation before and after (a take-over from `bot` must stop its active runs: the caller's
 * part, outside the transaction).
 *
 * @example
 * const { conversation } = await assignConversation(deps, { tenantId, conversationId, assignee, actor, claim: true });
 */
export async function assignConversation(
  deps: HandoffDeps,
  input: {
    tenantId: string;
    conversationId: string;
    assignee: Member;
    actor: ConversationActor;
    /** The actor takes it for themselves: refused when another member holds it. */
    claim: boolean;
    note?: string | null;
  },
): Promise<{ before: Conversation; conversation: Conversation }> {
  const result = await withTenantScope(deps.db, input.tenantId, async (tx) => {
    const locked = await lockConversationRow(tx, input.tenantId, input.conversationId);
    if (!locked) throw errors.notFound('conversation', input.conversationId);
    if (locked.mode === 'human' && locked.assignedTo === input.assignee.userId) {
      return { before: locked, conversation: locked, event: undefined };
    }
    if (input.claim && locked.mode === 'human' && locked.assignedTo !== input.assignee.userId) {
      throw errors.conflict(
        'conversation_assigned_elsewhere',
        'Another member holds this conversation; ask them or an owner to assign it to you',
      );
    }
    const changed = await changeConversationMode(tx, locked, {
      to: 'human',
      actor: input.actor,
      assignedTo: input.assignee.userId,
      note: input.note ?? null,
    });
    return { before: locked, ...changed };
  });
  if (result.event) {
    await announce(deps.events, result.conversation, modeEvent(result.conversation, result.event, input.assignee.name));
  }
  return { before: result.before, conversation: result.conversation };
}

/**
 * A member's reply to the visitor: stored as an `assistant` message written by a person (the
 * model later reads it with the name), streamed to the visitor at once, webhook
 * `conversation.human_message`. Only the member holding the conversation may reply (409
 * `conversation_assigned_elsewhere`; 409 `conversation_not_waiting` when no person holds it).
 *
 * @example
 * const message = await sendHumanMessage(deps, { tenantId, conversationId, author, text, actor });
 */
export async function sendHumanMessage(
  deps: HandoffDeps,
  input: {
    tenantId: string;
    conversationId: string;
    author: Member;
    /** An API key may reply for whoever holds the conversation; a member only for themselves. */
    asHolder: boolean;
    text: string;
  },
): Promise<{ message: StoredMessage; conversation: Conversation }> {
  const result = await withTenantScope(deps.db, input.tenantId, async (tx) => {
    const locked = await lockConversationRow(tx, input.tenantId, input.conversationId);
    if (!locked) throw errors.notFound('conversation', input.conversationId);
    if (locked.mode !== 'human') {
      throw errors.conflict(
        'conversation_not_waiting',
        locked.mode === 'pending_human'
          ? 'Nobody holds this conversation yet: claim it first (POST /v1/conversations/{id}/assign)'
          : 'The model answers this conversation: take it over first (POST /v1/conversations/{id}/assign)',
      );
    }
    if (!input.asHolder && locked.assignedTo !== input.author.userId) {
      throw errors.conflict('conversation_assigned_elsewhere', 'Another member holds this conversation');
    }
    const message = await appendConversationMessage(tx, {
      tenantId: input.tenantId,
      conversationId: locked.id,
      role: 'assistant',
      content: [{ type: 'text', text: input.text }],
      author: {
        type: 'human',
        user_id: input.asHolder ? locked.assignedTo : input.author.userId,
        name: input.author.name,
      },
    });
    await recordConversationWebhooks(tx, locked, 'conversation.human_message', {
      ...conversationSummary(locked),
      message: streamedMessage(message),
    });
    return { message, conversation: locked };
  });
  await announce(deps.events, result.conversation, {
    type: 'human-message',
    ...conversationSummary(result.conversation),
    message: streamedMessage(result.message),
  });
  return result;
}

/**
 * Gives the conversation back to the model (`bot`), with an optional note for it: stored as a
 * message the model reads on its next run (never shown to the visitor).
 *
 * @example
 * await releaseConversation(deps, { tenantId, conversationId, actor, note: 'Refund approved; confirm it.' });
 */
export async function releaseConversation(
  deps: HandoffDeps,
  input: { tenantId: string; conversationId: string; actor: ConversationActor; note?: string | null },
): Promise<Conversation> {
  return endHandoff(deps, { ...input, to: 'bot' });
}

/**
 * Closes the conversation (`resolved`) from any mode: nobody answers until the visitor writes
 * again, which gives it back to the model. Webhook `conversation.resolved`.
 *
 * @example
 * await resolveConversation(deps, { tenantId, conversationId, actor });
 */
export async function resolveConversation(
  deps: HandoffDeps,
  input: { tenantId: string; conversationId: string; actor: ConversationActor; note?: string | null },
): Promise<Conversation> {
  return endHandoff(deps, { ...input, to: 'resolved' });
}

async function endHandoff(
  deps: HandoffDeps,
  input: {
    tenantId: string;
    conversationId: string;
    actor: ConversationActor;
    note?: string | null;
    to: Extract<ConversationMode, 'bot' | 'resolved'>;
  },
): Promise<Conversation> {
  const result = await withTenantScope(deps.db, input.tenantId, async (tx) => {
    const locked = await lockConversationRow(tx, input.tenantId, input.conversationId);
    if (!locked) throw errors.notFound('conversation', input.conversationId);
    if (input.to === 'bot' && !heldByPeople(locked.mode)) {
      throw errors.conflict('conversation_not_waiting', 'No person holds this conversation or waits for one');
    }
    if (locked.mode === input.to) return { conversation: locked, event: undefined };
    const note = input.note?.trim() ? input.note.trim() : null;
    if (input.to === 'bot' && note) {
      await appendConversationMessage(tx, {
        tenantId: input.tenantId,
        conversationId: locked.id,
        role: 'assistant',
        content: [{ type: 'text', text: note }],
        author: {
          type: 'note',
          user_id: input.actor.type === 'user' ? (input.actor.id ?? null) : null,
          name: input.actor.name ?? 'Team',
        },
      });
    }
    const changed = await changeConversationMode(tx, locked, { to: input.to, actor: input.actor, note });
    if (input.to === 'resolved') {
      await recordConversationWebhooks(tx, changed.conversation, 'conversation.resolved', {
        ...conversationSummary(changed.conversation),
        from: locked.mode,
      });
    }
    return changed;
  });
  if (result.event)
    await announce(deps.events, result.conversation, modeEvent(result.conversation, result.event, null));
  return result.conversation;
}

/**
 * An internal note on the conversation: members see it in the inbox; the visitor and the model never do.
 *
 * @example
 * await addNote(deps, { tenantId, conversationId, actor, text: 'Called the customer back' });
 */
export async function addNote(
  deps: HandoffDeps,
  input: { tenantId: string; conversationId: string; actor: ConversationActor; text: string },
): Promise<ConversationEvent> {
  const result = await withTenantScope(deps.db, input.tenantId, async (tx) => {
    const locked = await lockConversationRow(tx, input.tenantId, input.conversationId);
    if (!locked) throw errors.notFound('conversation', input.conversationId);
    return { conversation: locked, event: await addConversationNote(tx, locked, input.actor, input.text) };
  });
  await announce(deps.events, result.conversation, {
    type: 'note',
    ...conversationSummary(result.conversation),
    note: {
      id: result.event.id,
      text: input.text,
      by_name: result.event.actorName,
      created_at: result.event.createdAt.toISOString(),
    },
  });
  return result.event;
}
