import { and, asc, desc, eq, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import { prebuilt } from '../prebuilt.ts';
import { conversations, messages } from '../schema.ts';
import { withTenantScope } from '../tenant-scope.ts';
import { type ConversationFilters, conversationFilterSql } from './conversation-filters.ts';
import { type IdempotencyHold, linkIdempotencyKey } from './idempotency.ts';

export {
  type ConversationFilters,
  type ConversationSummary,
  conversationSummaries,
  PREVIEW_CHARS,
} from './conversation-filters.ts';

export type Conversation = typeof conversations.$inferSelect;
export type StoredMessage = typeof messages.$inferSelect;

/** `idempotency`: the request's hold on its `Idempotency-Key`, linked to the conversation in its transaction. */
export async function createConversation(
  db: Db,
  input: { tenantId: string; agentId: string; agentVersion: number | null; context: Record<string, unknown> },
  idempotency?: IdempotencyHold,
): Promise<Conversation> {
  // Statements that decide nothing afterwards: the COMMIT goes along (one round trip).
  const [row] = await withTenantScope(db, input.tenantId, async (tx, commitAhead) => {
    const id = newId();
    const inserted = Promise.all([
      conversationInsert(tx, { id, ...input }),
      idempotency && linkIdempotencyKey(tx, idempotency, { type: 'conversation', id }),
    ]);
    commitAhead();
    return (await inserted)[0];
  });
  return row!;
}

const conversationInsert = prebuilt((db) =>
  db
    .insert(conversations)
    .values({
      id: sql.placeholder('id'),
      tenantId: sql.placeholder('tenantId'),
      agentId: sql.placeholder('agentId'),
      // An integer or null: no JSON encoding that would turn null into a value.
      agentVersion: sql.placeholder('agentVersion'),
      context: sql.placeholder('context'),
    })
    .returning(),
);

const conversationById = prebuilt((db) =>
  db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, sql.placeholder('id')), eq(conversations.tenantId, sql.placeholder('tenantId')))),
);

export async function getConversation(db: Db, tenantId: string, id: string): Promise<Conversation | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) => conversationById(tx, { id, tenantId }));
  return row;
}
/** Deletes the conversation with its messages and runs; false when it was not the tenant's. */
export async function deleteConversation(db: Db, tenantId: string, id: string): Promise<boolean> {
  const rows = await withTenantScope(db, tenantId, (tx) =>
    tx
      .delete(conversations)
      .where(and(eq(conversations.id, id), eq(conversations.tenantId, tenantId)))
      .returning({ id: conversations.id }),
  );
  return rows.length > 0;
}

const transcript = prebuilt((db) =>
  db
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.conversationId, sql.placeholder('conversationId')),
        eq(messages.tenantId, sql.placeholder('tenantId')),
      ),
    )
    .orderBy(asc(messages.seq)),
);

export async function listMessages(db: Db, tenantId: string, conversationId: string): Promise<StoredMessage[]> {
  return withTenantScope(db, tenantId, (tx) => transcript(tx, { tenantId, conversationId }));
}

/** Newest first, optionally for one agent; `before` is the last id of the previous page. */
export async function listConversations(
  db: Db,
  tenantId: string,
  page: { limit: number; before?: string; agentId?: string } & ConversationFilters,
): Promise<Conversation[]> {
  return withTenantScope(db, tenantId, (tx) =>
    tx
      .select()
      .from(conversations)
      .where(
        and(
          eq(conversations.tenantId, tenantId),
          // Test conversations (issue 22) live with their test run's results, not among customers'.
          isNull(conversations.test),
          page.agentId ? eq(conversations.agentId, page.agentId) : undefined,
          page.before ? lt(conversations.id, page.before) : undefined,
          ...conversationFilterSql(page),
        ),
      )
      .orderBy(desc(conversations.id))
      .limit(page.limit),
  );
}
