// An attempt's own writes: the claim (with what it starts from), checkpoints, heartbeats, the deferred
// input. Fenced through `run-fence.ts`; its end is `run-finish.ts`.
import type { Message } from '@agentry/llm';
import { and, eq, inArray, notExists, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import { prebuilt } from '../prebuilt.ts';
import { messages, runs } from '../schema.ts';
import { type Tx, withTenantScope } from '../tenant-scope.ts';
import { type AgentVersion, getAgentVersion } from './agents.ts';
import { type Conversation, getConversation, listMessages, type StoredMessage } from './conversations.ts';
import { seqAfterLast } from './message-seq.ts';
import { assertFence, behindFence } from './run-fence.ts';
import { ACTIVE, earlierActiveRun } from './run-status-sql.ts';
import type { Run, RunRef } from './runs.ts';
import { getTenant, type Tenant } from './tenants.ts';

/**
 * Starts an attempt: takes the next fencing number and marks the run running. Undefined when the
 * run is gone or already finished.
 */
export async function claimRun(db: Db, ref: RunRef): Promise<Run | undefined> {
  const [run] = await withTenantScope(db, ref.tenantId, (tx) => claimStatement(tx, ref));
  return run;
}

/**
 * The claim, handed to the driver at once (`execute()`), so statements issued after it run after it.
 * `inTurn`: only when no earlier run of the conversation is active (a conversation's runs go one at
 * a time, oldest first, as `getRunWithTurn` orders them).
 */
function claimStatement(tx: Tx, ref: RunRef, inTurn = false): Promise<Run[]> {
  return (inTurn ? claimInTurn : claimAnyway)(tx, { id: ref.id, tenantId: ref.tenantId });
}

function buildClaim(db: Db, inTurn: boolean) {
  const turn = notExists(earlierActiveRun(db));
  return db
    .update(runs)
    .set({
      fence: sql`${runs.fence} + 1`,
      status: 'running',
      startedAt: sql`coalesce(${runs.startedAt}, now())`,
      heartbeatAt: sql`now()`,
    })
    .where(
      and(
        eq(runs.id, sql.placeholder('id')),
        eq(runs.tenantId, sql.placeholder('tenantId')),
        inArray(runs.status, ACTIVE),
        inTurn ? turn : undefined,
      ),
    )
    .returning();
}

const claimInTurn = prebuilt((db) => buildClaim(db, true));
const claimAnyway = prebuilt((db) => buildClaim(db, false));

/** The run fields an attempt's start reads by: fixed when the run is created. */
export type RunStartRef = Pick<Run, 'id' | 'tenantId' | 'conversationId' | 'agentId' | 'agentVersion'>;

/** The rows an attempt starts from. */
export interface RunStartRows {
  tenant: Tenant | undefined;
  /** The conversation's transcript, in order. */
  messages: StoredMessage[];
  /** The run's agent version; undefined when it is gone. */
  version: AgentVersion | undefined;
  conversation: Conversation | undefined;
}

/**
 * Reads what an attempt starts from: the tenant, the transcript, the agent version and the
 * conversation. The four selects are handed to the driver at once and in this order, so in a
 * transaction they travel in one round trip behind whatever was issued before them (and run after it).
 *
 * @example
 * const { messages, version } = await readRunStart(db, run);
 */
export function readRunStart(db: Db, run: RunStartRef): Promise<RunStartRows> {
  return withTenantScope(db, run.tenantId, async (tx) => {
    const [tenant, list, version, conversation] = await Promise.all([
      getTenant(tx, run.tenantId),
      listMessages(tx, run.tenantId, run.conversationId),
      getAgentVersion(tx, run.tenantId, run.agentId, run.agentVersion),
      getConversation(tx, run.tenantId, run.conversationId),
    ]);
    return { tenant, messages: list, version, conversation };
  });
}

/** What a worker knows of a run from its job: its id and tenant, and where its start reads look. */
export type ClaimRef = RunRef & Partial<Pick<Run, 'conversationId' | 'agentId' | 'agentVersion'>>;

/**
 * The worker's claim: takes the next fencing number and marks the run running (as `claimRun`),
 * only when it is the run's turn (no earlier run of its conversation is active), and reads what
 * the attempt starts from (`readRunStart`) in the same transaction — when `ref` names the run's
 * conversation, agent and version (its job carries them) and they are the claimed run's. The reads
 * run after the claim, so the transcript holds every checkpoint of an earlier attempt that
 * committed before it, and no earlier attempt can write after it (its fence is stale). Undefined
 * when not claimed — gone, finished or not its turn (`getRunWithTurn` tells which). In a
 * transaction of its own it takes one round trip on Postgres (its COMMIT is sent ahead).
 *
 * @example
 * const claimed = await claimRunInTurn(db, { id: runId, tenantId, conversationId, agentId, agentVersion });
 * if (!claimed) return explainWhy(await getRunWithTurn(db, { id: runId, tenantId }));
 */
export async function claimRunInTurn(db: Db, ref: ClaimRef): Promise<{ run: Run; start?: RunStartRows } | undefined> {
  return withTenantScope(db, ref.tenantId, async (tx, commitAhead) => {
    const claimed = claimStatement(tx, ref, true);
    const { conversationId, agentId, agentVersion } = ref;
    const reads =
      conversationId && agentId && agentVersion !== undefined
        ? readRunStart(tx, { ...ref, conversationId, agentId, agentVersion })
        : undefined;
    // Nothing more is decided in this transaction: the COMMIT travels with the claim and the reads.
    commitAhead();
    const [[run], rows] = await Promise.all([claimed, reads]);
    if (!run) return undefined;
    const matches =
      run.conversationId === conversationId && run.agentId === agentId && run.agentVersion === agentVersion;
    return rows && matches ? { run, start: rows } : { run };
  });
}

/**
 * A checkpoint: appends messages and updates the run in one transaction, only while `fence` is
 * current.
 */
export async function checkpointRun(
  db: Db,
  run: Pick<Run, 'id' | 'tenantId' | 'conversationId'>,
  fence: number,
  list: Message[],
  update: Partial<Omit<Run, 'id' | 'tenantId' | 'conversationId' | 'fence'>> = {},
): Promise<void> {
  await withTenantScope(db, run.tenantId, async (tx) => {
    const fenced = assertFence(tx, run.id, fence, update);
    if (list.length === 0) return fenced;
    await behindFence(fenced, insertRunMessages(tx, run, list));
  });
}

/**
 * Appends a run's messages to its conversation, unfenced: for a transaction whose own fenced write
 * (a checkpoint, the final status) is what makes it commit or roll back. The next seq is read by
 * the insert itself (one statement, handed to the driver at once).
 */
export function insertRunMessages(
  tx: Tx,
  run: Pick<Run, 'id' | 'tenantId' | 'conversationId'>,
  list: Message[],
): Promise<unknown> {
  if (list.length === 0) return Promise.resolve();
  const values: Record<string, unknown> = { tenantId: run.tenantId, conversationId: run.conversationId, runId: run.id };
  list.forEach((m, i) => {
    values[`id${i}`] = newId();
    values[`role${i}`] = m.role;
    values[`content${i}`] = m.content;
  });
  return messagesInsert(list.length)(tx, values);
}

/** The insert of `count` messages of a run, prebuilt per count. */
const messageInserts = new Map<number, ReturnType<typeof buildMessagesInsert>>();

function messagesInsert(count: number) {
  let insert = messageInserts.get(count);
  if (!insert) {
    insert = buildMessagesInsert(count);
    // Bounded: a step writes a handful of messages; an unusual count still runs, just not kept.
    if (messageInserts.size < 16) messageInserts.set(count, insert);
  }
  return insert;
}

function buildMessagesInsert(count: number) {
  return prebuilt((db) =>
    db.insert(messages).values(
      Array.from({ length: count }, (_, i) => ({
        id: sql.placeholder(`id${i}`),
        tenantId: sql.placeholder('tenantId'),
        conversationId: sql.placeholder('conversationId'),
        runId: sql.placeholder('runId'),
        seq: seqAfterLast(sql.placeholder('conversationId'), i + 1),
        role: sql.placeholder(`role${i}`),
        content: sql.placeholder(`content${i}`),
      })),
    ),
  );
}

/** Keeps the run's heartbeat fresh; false when the attempt is stale. */
export async function heartbeatRun(db: Db, run: RunRef, fence: number): Promise<boolean> {
  const rows = await withTenantScope(db, run.tenantId, (tx) =>
    tx
      .update(runs)
      .set({ heartbeatAt: sql`now()` })
      .where(and(eq(runs.id, run.id), eq(runs.fence, fence)))
      .returning({ id: runs.id }),
  );
  return rows.length > 0;
}

/**
 * Writes a waiting run's deferred user message into the transcript (first attempt only): the
 * fenced run update (which also clears the input and points at the message) and the insert go out
 * together, in one round trip; a stale fence rolls both back.
 */
export async function writePendingInput(db: Db, run: Run, fence: number): Promise<void> {
  const content = run.pendingInput;
  if (!content) return;
  await withTenantScope(db, run.tenantId, async (tx) => {
    const id = newId();
    const fenced = assertFence(tx, run.id, fence, { pendingInput: null, inputMessageId: id });
    const inserted = tx
      .insert(messages)
      .values({
        id,
        tenantId: run.tenantId,
        conversationId: run.conversationId,
        runId: run.id,
        seq: seqAfterLast(run.conversationId, 1),
        role: 'user',
        content,
      })
      .execute();
    await behindFence(fenced, inserted);
  });
}
