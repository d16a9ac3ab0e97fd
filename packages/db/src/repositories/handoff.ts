import type { ContentPart } from '@agentry/llm';
import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import {
  type BusinessHours,
  type ConversationActorType,
  type ConversationMode,
  conversationEvents,
  conversations,
  type HandoffInfo,
  type MessageAuthor,
  messages,
  tenantMembers,
  tenants,
  users,
} from '../schema.ts';
import { type Tx, withTenantScope } from '../tenant-scope.ts';
import { recordAuditEvent } from './audit.ts';
import type { Conversation, StoredMessage } from './conversations.ts';

export type ConversationEvent = typeof conversationEvents.$inferSelect;

/** Who changes a conversation's mode or writes a note: a member, an API key, the model, a flow, the visitor. */
export interface ConversationActor {
  type: ConversationActorType;
  /** The user's or API key's id. */
  id?: string | null;
  /** The member's display name (or the key's prefix). */
  name?: string | null;
  /** A member's email, kept in the audit log. */
  email?: string | null;
}

/** The modes in which people, not the model, answer the visitor. */
export const HUMAN_MODES: readonly ConversationMode[] = ['pending_human', 'human'];

/** Whether a conversation in this mode waits for or is held by a person (no run starts). */
export function heldByPeople(mode: ConversationMode): boolean {
  return mode === 'pending_human' || mode === 'human';
}

/**
 * The conversation, locked (`FOR UPDATE`) until the transaction ends: mode changes and held
 * messages of a conversation take turns with each other and with run starts.
 *
 * @example
 * await withTenantScope(db, tenantId, async (tx) => { const c = await lockConversationRow(tx, tenantId, id); … });
 */
export async function lockConversationRow(tx: Tx, tenantId: string, id: string): Promise<Conversation | undefined> {
  const [row] = await tx
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.tenantId, tenantId)))
    .for('update');
  return row;
}

/** The change of a conversation's mode: to what, by whom, with what note or handoff request. */
export interface ModeChange {
  to: ConversationMode;
  actor: ConversationActor;
  /** The member holding it (mode `human`); cleared for every other mode. */
  assignedTo?: string | null;
  /** A new handoff request (mode `pending_human`); the earlier one is kept otherwise. */
  handoff?: HandoffInfo;
  note?: string | null;
}

/**
 * Changes a locked conversation's mode: the row, one `transition` record (from, to, who, when,
 * note) and one audit event (`conversation.<to mode>`), in the caller's transaction.
 *
 * @example
 * const updated = await changeConversationMode(tx, locked, { to: 'human', actor, assignedTo: userId });
 */
export async function changeConversationMode(
  tx: Tx,
  conversation: Conversation,
  change: ModeChange,
): Promise<{ conversation: Conversation; event: ConversationEvent }> {
  const assignedTo = change.to === 'human' ? (change.assignedTo ?? null) : null;
  const [updated] = await tx
    .update(conversations)
    .set({
      mode: change.to,
      assignedTo,
      ...(change.handoff ? { handoff: change.handoff } : {}),
      modeChangedAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(conversations.id, conversation.id), eq(conversations.tenantId, conversation.tenantId)))
    .returning();
  const event = await insertConversationEvent(tx, conversation, {
    kind: 'transition',
    fromMode: conversation.mode,
    toMode: change.to,
    actor: change.actor,
    assignedTo,
    note: change.note ?? null,
  });
  await recordAuditEvent(tx as unknown as Db, {
    tenantId: conversation.tenantId,
    actor: auditActor(change.actor),
    action: auditAction(conversation.mode, change.to),
    target: { type: 'conversation', id: conversation.id },
    details: {
      from: conversation.mode,
      to: change.to,
      by: change.actor.type,
      ...(assignedTo ? { assigned_to: assignedTo } : {}),
      ...(change.handoff ? { reason: change.handoff.reason, source: change.handoff.source } : {}),
    },
  });
  return { conversation: updated!, event };
}

function auditAction(from: ConversationMode, to: ConversationMode): string {
  if (to === 'pending_human') return 'conversation.handoff_requested';
  if (to === 'human') return from === 'human' ? 'conversation.reassigned' : 'conversation.assigned';
  if (to === 'bot') return 'conversation.released';
  return 'conversation.resolved';
}

/** The audit log knows users, API keys and the platform: the model, flows and visitors act as the platform. */
function auditActor(actor: ConversationActor): Parameters<typeof recordAuditEvent>[1]['actor'] {
  if (actor.type === 'user' && actor.id) {
    return { type: 'user', userId: actor.id, ...(actor.email ? { email: actor.email } : {}) };
  }
  if (actor.type === 'api_key' && actor.id) return { type: 'api_key', apiKeyId: actor.id };
  return { type: 'platform' };
}

async function insertConversationEvent(
  tx: Tx,
  conversation: Pick<Conversation, 'id' | 'tenantId'>,
  input: {
    kind: 'transition' | 'note';
    fromMode?: ConversationMode | null;
    toMode?: ConversationMode | null;
    actor: ConversationActor;
    assignedTo?: string | null;
    note: string | null;
  },
): Promise<ConversationEvent> {
  const [row] = await tx
    .insert(conversationEvents)
    .values({
      id: newId(),
      tenantId: conversation.tenantId,
      conversationId: conversation.id,
      kind: input.kind,
      fromMode: input.fromMode ?? null,
      toMode: input.toMode ?? null,
      actorType: input.actor.type,
      actorId: input.actor.id ?? null,
      actorName: input.actor.name ?? null,
      assignedTo: input.assignedTo ?? null,
      note: input.note,
    })
    .returning();
  return row!;
}

/**
 * An internal note on a conversation: seen by members only, never by the visitor or the model.
 *
 * @example
 * await addConversationNote(tx, conversation, { type: 'user', id: userId, name: 'Ana' }, 'Refund approved');
 */
export async function addConversationNote(
  tx: Tx,
  conversation: Pick<Conversation, 'id' | 'tenantId'>,
  actor: ConversationActor,
  note: string,
): Promise<ConversationEvent> {
  return insertConversationEvent(tx, conversation, { kind: 'note', actor, note });
}

/** A conversation's transitions and notes, oldest first (at most `limit`). */
export async function listConversationEvents(
  db: Db,
  tenantId: string,
  conversationId: string,
  limit = 500,
): Promise<ConversationEvent[]> {
  return withTenantScope(db, tenantId, (tx) =>
    tx
      .select()
      .from(conversationEvents)
      .where(and(eq(conversationEvents.conversationId, conversationId), eq(conversationEvents.tenantId, tenantId)))
      .orderBy(asc(conversationEvents.createdAt), asc(conversationEvents.id))
      .limit(limit),
  );
}

/**
 * Appends a message outside any run (a visitor's message while people hold the conversation, a
 * member's reply, a note for the model), after the conversation's last one. The caller holds the
 * conversation's lock.
 *
 * @example
 * await appendConversationMessage(tx, { tenantId, conversationId, role: 'user', content });
 */
export async function appendConversationMessage(
  tx: Tx,
  input: {
    tenantId: string;
    conversationId: string;
    role: 'user' | 'assistant';
    content: ContentPart[];
    author?: MessageAuthor;
  },
): Promise<StoredMessage> {
  const [row] = await tx
    .insert(messages)
    .values({
      id: newId(),
      tenantId: input.tenantId,
      conversationId: input.conversationId,
      runId: null,
      seq: sql`(select coalesce(max(${messages.seq}), 0) + 1 from ${messages} where ${messages.conversationId} = ${input.conversationId})`,
      role: input.role,
      content: input.content,
      author: input.author ?? null,
    })
    .returning();
  return row!;
}

/** One inbox row: the conversation and how many of the visitor's messages wait for an answer. */
export interface InboxEntry {
  conversation: Conversation;
  /** The visitor's messages after the last answer (a person's or the model's). */
  unanswered: number;
  /** The text of the last message, cut to 200 characters. */
  lastMessage: string | null;
}

/**
 * The conversations people wait for (`pending_human`) or hold (`human`), longest waiting first;
 * `mine` keeps those assigned to that user, `waiting` those nobody holds yet.
 *
 * @example
 * const rows = await listInbox(db, tenantId, { filter: 'waiting', limit: 50 });
 */
export async function listInbox(
  db: Db,
  tenantId: string,
  options: { filter?: 'all' | 'waiting' | 'mine'; userId?: string; limit: number; agentId?: string },
): Promise<InboxEntry[]> {
  const filter = options.filter ?? 'all';
  return withTenantScope(db, tenantId, async (tx) => {
    const rows = await tx
      .select()
      .from(conversations)
      .where(
        and(
          eq(conversations.tenantId, tenantId),
          filter === 'waiting'
            ? eq(conversations.mode, 'pending_human')
            : filter === 'mine'
              ? and(eq(conversations.mode, 'human'), eq(conversations.assignedTo, options.userId ?? sql`null`))
              : inArray(conversations.mode, [...HUMAN_MODES]),
          options.agentId ? eq(conversations.agentId, options.agentId) : undefined,
        ),
      )
      .orderBy(asc(conversations.modeChangedAt), asc(conversations.id))
      .limit(options.limit);
    if (rows.length === 0) return [];
    const stats = await tx
      .select({
        conversationId: messages.conversationId,
        unanswered: sql<number>`count(*) filter (where ${messages.role} = 'user' and ${messages.seq} > coalesce((select max(m2.seq) from ${messages} m2 where m2.conversation_id = ${messages.conversationId} and m2.role = 'assistant'), 0))`,
        lastMessage: sql<
          string | null
        >`(select left(coalesce((select string_agg(p->>'text', '') from jsonb_array_elements(m3.content) p where p->>'type' = 'text'), ''), 200) from ${messages} m3 where m3.conversation_id = ${messages.conversationId} and m3.role in ('user', 'assistant') and (m3.author is null or m3.author->>'type' <> 'note') order by m3.seq desc limit 1)`,
      })
      .from(messages)
      .where(
        and(
          eq(messages.tenantId, tenantId),
          inArray(
            messages.conversationId,
            rows.map((r) => r.id),
          ),
        ),
      )
      .groupBy(messages.conversationId);
    const byId = new Map(stats.map((s) => [s.conversationId, s]));
    return rows.map((conversation) => ({
      conversation,
      unanswered: Number(byId.get(conversation.id)?.unanswered ?? 0),
      lastMessage: byId.get(conversation.id)?.lastMessage ?? null,
    }));
  });
}

/** The members of a tenant who may take conversations over (owners and editors) and are available now. */
export async function countAvailableMembers(tx: Tx | Db, tenantId: string): Promise<number> {
  const [row] = await withTenantScope(tx as Db, tenantId, (t) =>
    t
      .select({ n: count() })
      .from(tenantMembers)
      .where(
        and(
          eq(tenantMembers.tenantId, tenantId),
          eq(tenantMembers.available, true),
          inArray(tenantMembers.role, ['owner', 'editor']),
        ),
      ),
  );
  return Number(row?.n ?? 0);
}

/** Marks a member available or not; false when the user is no member of the tenant. */
export async function setMemberAvailability(
  db: Db,
  tenantId: string,
  userId: string,
  available: boolean,
): Promise<boolean> {
  const rows = await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(tenantMembers)
      .set({ available })
      .where(and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.userId, userId)))
      .returning({ userId: tenantMembers.userId }),
  );
  return rows.length > 0;
}

/** A tenant's members with their availability and display names, in name order. */
export async function listMemberAvailability(
  db: Db,
  tenantId: string,
): Promise<Array<{ userId: string; name: string; role: string; available: boolean }>> {
  const rows = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select({
        userId: tenantMembers.userId,
        name: users.name,
        email: users.email,
        role: tenantMembers.role,
        available: tenantMembers.available,
      })
      .from(tenantMembers)
      .innerJoin(users, eq(users.id, tenantMembers.userId))
      .where(eq(tenantMembers.tenantId, tenantId))
      .orderBy(asc(users.email))
      .limit(1000),
  );
  return rows.map((r) => ({ ...r, name: displayName(r) }));
}

/**
 * The name a member's replies carry: their name, else the part of their email before the `@`
 * (never the whole address: visitors see it). Undefined when the user is no member.
 */
export async function memberDisplayName(tx: Tx | Db, tenantId: string, userId: string): Promise<string | undefined> {
  const [row] = await withTenantScope(tx as Db, tenantId, (t) =>
    t
      .select({ name: users.name, email: users.email, role: tenantMembers.role })
      .from(tenantMembers)
      .innerJoin(users, eq(users.id, tenantMembers.userId))
      .where(and(eq(tenantMembers.tenantId, tenantId), eq(tenantMembers.userId, userId))),
  );
  return row ? displayName(row) : undefined;
}

function displayName(row: { name: string | null; email: string }): string {
  return row.name?.trim() || row.email.split('@')[0] || 'Team';
}

/** Sets (or clears, with null) a tenant's business hours. */
export async function setBusinessHours(db: Db, tenantId: string, hours: BusinessHours | null): Promise<void> {
  await withTenantScope(db, tenantId, (tx) =>
    tx.update(tenants).set({ businessHours: hours }).where(eq(tenants.id, tenantId)),
  );
}

/** A tenant's business hours (null: any time). */
export async function getBusinessHours(tx: Tx | Db, tenantId: string): Promise<BusinessHours | null> {
  const [row] = await withTenantScope(tx as Db, tenantId, (t) =>
    t.select({ hours: tenants.businessHours }).from(tenants).where(eq(tenants.id, tenantId)),
  );
  return row?.hours ?? null;
}
