// A message's run: written under the conversation's lock (the run service decides whether it may start).
import { errors } from '@agentry/errors';
import type { Message } from '@agentry/llm';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import { prebuilt } from '../prebuilt.ts';
import { agents, agentVersions, conversations, messages, runs } from '../schema.ts';
import { type CommitAhead, type Tx, withTenantScope } from '../tenant-scope.ts';
import type { AgentVersion } from './agents.ts';
import type { Conversation, StoredMessage } from './conversations.ts';
import { type IdempotencyHold, linkIdempotencyKey } from './idempotency.ts';
import { seqAfterLast } from './message-seq.ts';
import { activeRuns, type Run } from './runs.ts';

/**
 * A conversation with the agent version its next run uses (the pinned one, else the agent's
 * published one), in one statement (left joins) instead of one query each for the conversation,
 * its agent and the version. No row when the conversation is not the tenant's; `version` null when
 * the agent has no such version (or is gone).
 */
const conversationWithVersion = prebuilt((db) =>
  db
    .select({ conversation: conversations, version: agentVersions })
    .from(conversations)
    .leftJoin(agents, and(eq(agents.id, conversations.agentId), eq(agents.tenantId, sql.placeholder('tenantId'))))
    // Joined on the agent row, not the conversation's agent id: no agent, no version (as before).
    .leftJoin(
      agentVersions,
      and(
        eq(agentVersions.agentId, agents.id),
        eq(agentVersions.tenantId, sql.placeholder('tenantId')),
        eq(agentVersions.version, sql`coalesce(${conversations.agentVersion}, ${agents.publishedVersion})`),
      ),
    )
    .where(and(eq(conversations.id, sql.placeholder('id')), eq(conversations.tenantId, sql.placeholder('tenantId')))),
);

const userMessageInsert = prebuilt((db) =>
  db
    .insert(messages)
    .values({
      id: sql.placeholder('id'),
      tenantId: sql.placeholder('tenantId'),
      conversationId: sql.placeholder('conversationId'),
      runId: sql.placeholder('runId'),
      seq: seqAfterLast(sql.placeholder('conversationId'), 1),
      role: sql.placeholder('role'),
      content: sql.placeholder('content'),
    })
    .returning(),
);

/**
 * Stores a queued run for a user's message, atomically and serialised per conversation (the
 * conversation row is locked). With no active run the message joins the transcript at once;
 * otherwise it is kept on the run until the run starts. No policy: the run service decides
 * whether a message may start a run (busy policy, queue bound, quota); this is the plain write
 * for fixtures and tests. Throws 404 `conversation_not_found` when the conversation is not the
 * tenant's (or was just deleted).
 *
 * @example
 * const { run } = await createRunForMessage(db, { tenantId, conversationId, agentId,
 *   agentVersion: 1, traceId, message: { role: 'user', content } });
 */
export async function createRunForMessage(
  db: Db,
  input: Omit<RunWrite, 'active' | 'interrupt'>,
): Promise<{ run: Run; message?: StoredMessage }> {
  const { tenantId, conversationId } = input;
  return withTenantScope(db, tenantId, async (tx, commitAhead) => {
    const [conversation, active] = await lockConversation(tx, tenantId, conversationId);
    if (!conversation) throw errors.notFound('conversation', conversationId);
    return insertRun(tx, { ...input, active, interrupt: [] }, commitAhead);
  });
}

/** A conversation locked for a new run: its agent version and its active runs (read under the lock). */
export interface ConversationForRun {
  conversation: Conversation;
  /** The version its next run uses (pinned, else published); undefined when there is none. */
  version: AgentVersion | undefined;
  active: Run[];
}

/**
 * Locks a conversation for a new run and reads, in the same round trip, the agent version its
 * next run uses and its active runs. Undefined when the conversation is not the tenant's (or was
 * just deleted). Call inside `withTenantScope`; `insertRun` follows in the same transaction.
 *
 * @example
 * const found = await lockConversationForRun(tx, tenantId, conversationId);
 */
export async function lockConversationForRun(
  tx: Tx,
  tenantId: string,
  conversationId: string,
): Promise<ConversationForRun | undefined> {
  // The lookup goes first, the lock and the active runs right behind it (one round trip).
  const lookup = conversationWithVersion(tx, { tenantId, id: conversationId });
  const [[row], [locked, active]] = await Promise.all([lookup, lockConversation(tx, tenantId, conversationId)]);
  if (!row || !locked) return undefined;
  // The mode as of the lock (the lookup may have read it before a handoff that held the lock committed).
  return { conversation: { ...row.conversation, mode: locked.mode }, version: row.version ?? undefined, active };
}

/**
 * The lock that serialises a conversation's messages, and the `updated_at` write in one statement
 * (`now()` is the transaction's start either way), then the active runs, read by the next
 * statement, sent with it and run after it: a fresh snapshot taken once the lock is held, so it
 * sees the run of any transaction that held the lock before.
 */
const conversationLock = prebuilt((db) =>
  db
    .update(conversations)
    .set({ updatedAt: sql`now()` })
    .where(and(eq(conversations.id, sql.placeholder('id')), eq(conversations.tenantId, sql.placeholder('tenantId'))))
    .returning({ id: conversations.id, mode: conversations.mode }),
);

async function lockConversation(tx: Tx, tenantId: string, conversationId: string) {
  const locked = conversationLock(tx, { id: conversationId, tenantId });
  const [[conversation], active] = await Promise.all([locked, activeRuns(tx, tenantId, conversationId)]);
  return [conversation, active] as const;
}

/**
 * A message's run, with the user message it starts from, or with the message kept on the run while
 * an earlier run is active: two shapes, since the column left out must stay SQL null (a placeholder
 * would store a JSON null in the jsonb `pending_input`).
 */
const runWithMessageInsert = prebuilt((db) => db.insert(runs).values(runInsertValues('inputMessageId')).returning());
const runWithPendingInsert = prebuilt((db) => db.insert(runs).values(runInsertValues('pendingInput')).returning());

function runInsertValues(input: 'inputMessageId' | 'pendingInput') {
  return {
    id: sql.placeholder('id'),
    tenantId: sql.placeholder('tenantId'),
    conversationId: sql.placeholder('conversationId'),
    agentId: sql.placeholder('agentId'),
    agentVersion: sql.placeholder('agentVersion'),
    traceId: sql.placeholder('traceId'),
    endUser: sql.placeholder('endUser'),
    [input]: sql.placeholder(input),
  };
}

/** A message's run as decided by its caller, written under the conversation's lock. */
export interface RunWrite {
  tenantId: string;
  conversationId: string;
  agentId: string;
  agentVersion: number;
  traceId: string;
  message: Message;
  /** The conversation's active runs, read under the lock: with any, the message waits on the run. */
  active: Run[];
  /** Active runs to mark for cancellation (the `interrupt` busy policy). */
  interrupt: Run[];
  /** The request's Idempotency-Key, linked to the run in the same commit. */
  idempotency?: IdempotencyHold | undefined;
  /** The verified end user's values for the run's tools, sealed (`runs.end_user`); null: none. */
  endUser?: string | null | undefined;
}

/**
 * The run's writes once the conversation is locked (`lockConversationForRun`): its user message
 * (or kept input), the run, interruptions. They are the transaction's last statements and nothing
 * is checked after them: the COMMIT travels with them (one round trip).
 *
 * @example
 * const { run } = await insertRun(tx, { ...plan, active: found.active, interrupt: [] }, commitAhead);
 */
export async function insertRun(
  tx: Tx,
  input: RunWrite,
  commitAhead: CommitAhead,
): Promise<{ run: Run; message?: StoredMessage }> {
  const { tenantId, conversationId, active } = input;
  const interrupted = input.interrupt;
  const runId = newId();
  // The message's id is made here, so the run can point at it without waiting for the insert.
  const messageId = active.length === 0 ? newId() : undefined;
  const written = Promise.all([
    messageId
      ? userMessageInsert(tx, {
          id: messageId,
          tenantId,
          conversationId,
          runId,
          role: input.message.role,
          content: input.message.content,
        })
      : [],
    (messageId ? runWithMessageInsert : runWithPendingInsert)(tx, {
      id: runId,
      tenantId,
      conversationId,
      agentId: input.agentId,
      agentVersion: input.agentVersion,
      traceId: input.traceId,
      endUser: input.endUser ?? null,
      ...(messageId ? { inputMessageId: messageId } : { pendingInput: input.message.content }),
    }),
    interrupted.length > 0
      ? tx
          .update(runs)
          .set({ cancelRequestedAt: sql`coalesce(${runs.cancelRequestedAt}, now())` })
          .where(
            inArray(
              runs.id,
              interrupted.map((r) => r.id),
            ),
          )
          .execute()
      : undefined,
    // The request's Idempotency-Key names the run in the same commit: a retry after a crash finds it.
    input.idempotency && linkIdempotencyKey(tx, input.idempotency, { type: 'run', id: runId }),
  ]);
  commitAhead();
  const [stored, [run]] = await written;
  const message = stored[0];
  return { run: run!, ...(message ? { message } : {}) };
}
