import type { Conversation, ConversationEvent, StoredMessage } from '@agentry/db';
import type { RunEventBus } from '@agentry/run-events';

/**
 * The live streams of issue 21 ride on the run event bus (Redis Streams, or memory when embedded)
 * under keys of their own: a tenant's inbox and each conversation. Readers block on the stream, so
 * an idle inbox costs nothing (no timer per conversation).
 */
export const inboxStreamKey = (tenantId: string) => `inbox:${tenantId}`;
export const conversationStreamKey = (conversationId: string) => `conversation:${conversationId}`;

/** A message as the streams carry it (the API's message view, with its author). */
export function streamedMessage(message: StoredMessage) {
  return {
    id: message.id,
    object: 'message',
    seq: message.seq,
    role: message.role,
    run_id: message.runId,
    content: message.content.flatMap((p) => (p.type === 'text' ? [{ type: 'text', text: p.text }] : [])),
    author: message.author ? { type: message.author.type, name: message.author.name } : null,
    created_at: message.createdAt.toISOString(),
  };
}

/** What every inbox event says of its conversation, so a list can update its row without a read. */
export function conversationSummary(conversation: Conversation) {
  return {
    conversation_id: conversation.id,
    agent_id: conversation.agentId,
    mode: conversation.mode,
    assigned_to: conversation.assignedTo,
    handoff: conversation.handoff,
    mode_changed_at: conversation.modeChangedAt?.toISOString() ?? null,
  };
}

/**
 * The events of the inbox and conversation streams:
 * - `mode`: the conversation's mode changed (`from`, `to`, who, the note) — visitors get `mode`
 *   and the assignee's name only;
 * - `visitor-message`: the visitor wrote while people hold the conversation (no run started);
 * - `human-message`: a member's reply (visitors get it too: show it with `message.author.name`);
 * - `note`: an internal note (members only).
 */
export type HandoffStreamEvent =
  | ({ type: 'mode'; from: string; to: string; by: string; by_name: string | null; note: string | null } & ReturnType<
      typeof conversationSummary
    > & { assigned_name: string | null })
  | ({ type: 'visitor-message' | 'human-message'; message: ReturnType<typeof streamedMessage> } & ReturnType<
      typeof conversationSummary
    >)
  | ({ type: 'note'; note: { id: string; text: string; by_name: string | null; created_at: string } } & ReturnType<
      typeof conversationSummary
    >);

/**
 * Publishes an event to the tenant's inbox and to the conversation's stream. A failure is
 * swallowed: the change is committed already, and readers catch up from the database.
 *
 * @example
 * await announce(events, conversation, { type: 'visitor-message', ...conversationSummary(c), message });
 */
export async function announce(
  events: RunEventBus | undefined,
  conversation: Pick<Conversation, 'id' | 'tenantId'>,
  event: HandoffStreamEvent,
): Promise<void> {
  if (!events) return;
  await Promise.all([
    events.publish(inboxStreamKey(conversation.tenantId), event).catch(() => {}),
    events.publish(conversationStreamKey(conversation.id), event).catch(() => {}),
  ]);
}

/** The `mode` event of a transition. */
export function modeEvent(
  conversation: Conversation,
  event: ConversationEvent,
  assignedName: string | null,
): HandoffStreamEvent {
  return {
    type: 'mode',
    ...conversationSummary(conversation),
    from: event.fromMode ?? conversation.mode,
    to: event.toMode ?? conversation.mode,
    by: event.actorType,
    by_name: event.actorName,
    note: event.note,
    assigned_name: assignedName,
  };
}

/**
 * What a visitor's conversation stream shows of an event: a person's replies and the mode (with
 * the assignee's name), never notes, summaries or other visitors' messages. Undefined: not shown.
 */
export function visitorStreamEvent(event: Record<string, unknown>): Record<string, unknown> | undefined {
  if (event.type === 'human-message') {
    return { type: 'human-message', conversation_id: event.conversation_id, message: event.message };
  }
  if (event.type === 'mode') {
    return {
      type: 'mode',
      conversation_id: event.conversation_id,
      mode: event.to,
      assigned_name: event.assigned_name ?? null,
    };
  }
  return undefined;
}
