// A message's run: created under the conversation's lock, with its busy policy and queue bound.
import { AppError, errors } from '@agentry/errors';
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

/** What a new message does while the conversation's previous run is still active. */
export type BusyPolicy = 'reject' | 'enqueue' | 'interrupt';

/**
 * Stores a queued run for a user's message, atomically and serialised per conversation (the
 * conversation row is locked). With no active run the message joins the transcript at once;
 * otherwise `policy` decides: `reject` throws 409 `conversation_busy`, `enqueue` keeps the message
 * on the run until it starts, `interrupt` does the same and marks the active runs for cancellation
 * (returned, so the caller can signal their workers). Throws 404 `conversation_not_found` when the
 * conversation is not the tenant's (or was just deleted).
 *
 * Four statements in two round trips on Postgres: the lock with the active runs, then the writes.
 *
 * @example
 * const { run, interrupted } = await createRunForMessage(db, { tenantId, conversationId, agentId,
 *   agentVersion: 1, traceId, message: { role: 'user', content }, policy: 'enqueue' });
 */
export async function createRunForMessage(
  db: Db,
  input: {
    tenantId: string;
    conversationId: string;
    agentId: string;
    agentVersion: number;
    traceId: string;
    message: Message;
    policy: BusyPolicy;
    maxQueuedRuns?: number;
  },
): Promise<{ run: Run; message?: StoredMessage; interrupted: Run[] }> {
  const { tenantId, conversationId } = input;
  return withTenantScope(db, tenantId, async (tx, commitAhead) => {
    const [conversation, active] = await lockConversation(tx, tenantId, conversationId);
    if (!conversation) throw errors.notFound('conversation', conversationId);
    return writeRun(tx, { ...input, active }, commitAhead);
  });
}

/** What a message's run is: decided from the conversation and its agent version. */
export interface RunPlan {
  agentId: string;
  agentVersion: number;
  message: Message;
  policy: BusyPolicy;
  /**
   * Queued runs the conversation may hold (the agent's `limits.max_queued_runs`): at that many, the
   * message is refused 429 `conversation_queue_full` and nothing is written. Absent = no bound.
   */
  maxQueuedRuns?: number;
}

/**
 * `createRunForMessage` for a caller that still has to look the conversation up: its agent version
 * is read in the same round trip as the lock and the active runs, `decide` checks what it found
 * (throwing to write nothing) and says what the run is, then the writes go — one transaction and
 * two round trips on Postgres for the whole message POST. `decide` runs inside the transaction
 * (it may read with `tx`) while the conversation is locked: keep it to checks, no waiting on clients.
 *
 * @example
 * const { run } = await startRunForMessage(db, { tenantId, conversationId, traceId }, async (found) => {
 *   if (!found?.version) throw errors.notFound('conversation', conversationId);
 *   return { agentId: found.version.agentId, agentVersion: found.version.version, message, policy: 'enqueue' };
 * });
 */
export async function startRunForMessage<P extends RunPlan>(
  db: Db,
  input: { tenantId: string; conversationId: string; traceId: string; idempotency?: IdempotencyHold },
  decide: (found: { conversation: Conversation; version: AgentVersion | undefined } | undefined, tx: Tx) => Promise<P>,
): Promise<{ run: Run; message?: StoredMessage; interrupted: Run[]; plan: P }> {
  const { tenantId, conversationId } = input;
  return withTenantScope(db, tenantId, async (tx, commitAhead) => {
    // The lookup goes first, the lock and the active runs right behind it (one round trip).
    const lookup = conversationWithVersion(tx, { tenantId, id: conversationId });
    const [[row], [locked, active]] = await Promise.all([lookup, lockConversation(tx, tenantId, conversationId)]);
    const found = row && locked ? { conversation: row.conversation, version: row.version ?? undefined } : undefined;
    const plan = await decide(found, tx);
    if (!found) throw errors.notFound('conversation', conversationId);
    return { ...(await writeRun(tx, { ...input, ...plan, active }, commitAhead)), plan };
  });
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
    .returning({ id: conversations.id }),
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
    [input]: sql.placeholder(input),
  };
}

/** 429 for a message past the conversation's queue: retried once a queued run has started. */
function conversationQueueFull(max: number): AppError {
  return new AppError({
    code: 'conversation_queue_full',
    message: `This conversation already holds ${max} queued runs; retry once one has started`,
    category: 'user',
    status: 429,
    retryable: true,
    retryAfterMs: 5000,
  });
}

/**
 * The run's writes once the conversation is locked: its user message (or kept input), the run,
 * interruptions. They are the transaction's last statements and nothing is checked after them:
 * the COMMIT travels with them (one round trip).
 */
async function writeRun(
  tx: Tx,
  input: RunPlan & {
    tenantId: string;
    conversationId: string;
    traceId: string;
    active: Run[];
    idempotency?: IdempotencyHold | undefined;
  },
  commitAhead: CommitAhead,
): Promise<{ run: Run; message?: StoredMessage; interrupted: Run[] }> {
  const { tenantId, conversationId, active } = input;
  if (active.length > 0 && input.policy === 'reject') {
    throw errors.conflict(
      'conversation_busy',
      'This conversation is still answering the previous message; try again when it is done',
    );
  }
  // Counted from the active runs already read under the lock: no round trip of its own.
  if (input.maxQueuedRuns !== undefined && active.filter((r) => r.status === 'queued').length >= input.maxQueuedRuns) {
    throw conversationQueueFull(input.maxQueuedRuns);
  }
  const interrupted = input.policy === 'interrupt' ? active : [];
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
  return { run: run!, ...(message ? { message } : {}), interrupted };
}
