import { AppError } from '@agentry/errors';
import type { Message } from '@agentry/llm';
import { type AnyColumn, and, asc, eq, getTableColumns, inArray, notExists, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import { prebuilt, slot } from '../prebuilt.ts';
import { agentVersions, messages, type RunStatus, runs, toolCalls } from '../schema.ts';
import { type Tx, withSystemScope, withTenantScope } from '../tenant-scope.ts';
import { type AgentVersion, getAgentVersion } from './agents.ts';
import { type Conversation, getConversation, listMessages, type Run, type StoredMessage } from './conversations.ts';
import { seqAfterLast } from './message-seq.ts';
import { getTenant, type Tenant } from './tenants.ts';
import { hasWebhookFor, recordRunWebhooks } from './webhook-deliveries.ts';

export type ToolCallRecord = typeof toolCalls.$inferSelect;

/** A run as its attempts know it: every write is scoped to its tenant. */
export type RunRef = Pick<Run, 'id' | 'tenantId'>;

/** Thrown when an attempt's fencing number is no longer current: a newer attempt owns the run. */
export function staleAttempt(runId: string): AppError {
  return new AppError({
    code: 'stale_attempt',
    message: `Run ${runId} is owned by a newer attempt; this attempt stops without writing`,
    category: 'system',
    retryable: false,
  });
}

const ACTIVE: RunStatus[] = ['queued', 'running', 'waiting'];

/**
 * `status in ('queued', 'running', 'waiting')` with the statuses written into the statement, not
 * bound as parameters: only then can a generic plan (a prepared statement's, after five runs) use
 * the partial index `runs_conversation_active_idx`. Bound, the planner combined the conversation's
 * index with the tenant's (`runs_tenant_idx`), reading every run of the tenant on each claim and
 * message (thousands of index entries per run in the benchmark, growing without bound).
 */
function isActiveRun(status: AnyColumn): SQL {
  return sql`${status} in (${ACTIVE_LITERALS})`;
}

// The statuses are this module's constants, never input: safe to write into the statement.
const ACTIVE_LITERALS = sql.raw(ACTIVE.map((status) => `'${status}'`).join(', '));

/** `status = 'queued'`, written into the statement for the same reason as `isActiveRun`. */
function isQueuedRun(status: AnyColumn): SQL {
  return sql`${status} = 'queued'`;
}

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

/**
 * An earlier active run of the same conversation as the `runs` row of the outer statement: while
 * one exists, that run waits its turn (a conversation's runs go one at a time, oldest first).
 */
function earlierActiveRun(db: Db) {
  const earlier = alias(runs, 'earlier');
  return db
    .select({ one: sql`1` })
    .from(earlier)
    .where(
      and(
        eq(earlier.conversationId, runs.conversationId),
        eq(earlier.tenantId, runs.tenantId),
        isActiveRun(earlier.status),
        sql`(${earlier.createdAt}, ${earlier.id}) < (${runs.createdAt}, ${runs.id})`,
      ),
    );
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
 * A run with the id of its conversation's oldest active run (a conversation's runs go one at a
 * time, oldest first), in one statement: the worker looks at both before it claims the run.
 * Undefined when the run is not the tenant's (or gone); `oldestActiveRunId` is null when no run of
 * the conversation is active.
 *
 * @example
 * const found = await getRunWithTurn(db, { id: runId, tenantId });
 * if (found?.oldestActiveRunId && found.oldestActiveRunId !== found.run.id) defer(); // an earlier run goes first
 */
export async function getRunWithTurn(
  db: Db,
  ref: RunRef,
): Promise<{ run: Run; oldestActiveRunId: string | null } | undefined> {
  const [row] = await withTenantScope(db, ref.tenantId, (tx) => {
    const earlier = alias(runs, 'earlier');
    const oldest = tx
      .select({ id: earlier.id })
      .from(earlier)
      .where(
        and(
          eq(earlier.conversationId, runs.conversationId),
          eq(earlier.tenantId, runs.tenantId),
          isActiveRun(earlier.status),
        ),
      )
      .orderBy(asc(earlier.createdAt), asc(earlier.id))
      .limit(1);
    return tx
      .select({ run: runs, oldestActiveRunId: sql<string | null>`(${oldest})` })
      .from(runs)
      .where(and(eq(runs.id, ref.id), eq(runs.tenantId, ref.tenantId)));
  });
  return row;
}

/**
 * Locks the run row and checks the fence; every fenced write starts with this. The check is made
 * by the database (`agentry_assert` raises when the fenced update matched no row), so a stale
 * fence aborts the transaction even when its COMMIT was sent ahead (`CommitAhead`); it is handed to
 * the driver at once (`execute()`), so the write the caller issues right after it goes out in the
 * same round trip and still runs after it. Rejects with `stale_attempt`.
 */
function assertFence(
  tx: Tx,
  runId: string,
  fence: number,
  update: Partial<Run> = {},
  finishing = false,
): Promise<void> {
  const key = `${runId}:${fence}`;
  const earlier = fencesChecked.get(tx)?.get(key);
  const updates = Object.keys(update).length > 0;
  // Several fenced writes in one transaction (an attempt batching its writes) need one check: the
  // first holds the row lock until commit, and its failure fails the transaction.
  if (earlier && !updates) return earlier;
  const check = fenceCheck(update, finishing)(tx, { ...update, runId, fence }).then(
    () => {},
    (error: unknown) => {
      throw isStale(error) ? staleAttempt(runId) : error;
    },
  );
  const checked = fencesChecked.get(tx) ?? new Map<string, Promise<void>>();
  fencesChecked.set(tx, checked.set(key, check));
  return check;
}

/**
 * Waits for a fence check and the write sent behind it. When the check failed the write fails too
 * (the transaction is aborted), and which rejection comes first is a matter of microtasks: the
 * check's `stale_attempt` is the one reported.
 */
async function behindFence<T>(fenced: Promise<void>, write: Promise<T>): Promise<T> {
  try {
    const [, written] = await Promise.all([fenced, write]);
    return written;
  } catch (error) {
    await fenced;
    throw error;
  }
}

/** What `agentry_assert` says when a fence check fails (SQLSTATE AG001, migration 0012). */
const STALE = 'stale_attempt';

/** The database's own error, under drizzle's "Failed query" wrapper. */
function isStale(error: unknown): boolean {
  const { code, message, cause } = (error ?? {}) as { code?: unknown; message?: unknown; cause?: unknown };
  return (code === 'AG001' && message === STALE) || (cause !== undefined && isStale(cause));
}

/**
 * The fence check for an update of these columns (none: the fence itself, a no-op that locks the
 * row), prebuilt per set of columns; a column set to null is part of the shape, not a value (a
 * placeholder would store a JSON null in a jsonb column). `finishing`: the run's final update,
 * which also needs an active status and stamps `finished_at`.
 */
function fenceCheck(update: Partial<Run>, finishing: boolean) {
  const columns = Object.entries(update)
    .map(([column, value]) => (value === null ? `${column}=null` : column))
    .sort()
    .join(',');
  const shape = finishing ? `${columns}|finish` : columns;
  let check = fenceChecks.get(shape);
  if (!check) {
    check = prebuilt((db) => {
      const set = Object.fromEntries(
        Object.entries(update).map(([column, value]) => [column, value === null ? null : sql.placeholder(column)]),
      );
      const finish = { finishedAt: sql`now()`, heartbeatAt: sql`now()` };
      const write = db
        .update(runs)
        .set(finishing ? { ...set, ...finish } : columns ? set : { fence: sql.placeholder('fence') })
        .where(
          and(
            eq(runs.id, sql.placeholder('runId')),
            eq(runs.fence, sql.placeholder('fence')),
            finishing ? inArray(runs.status, ACTIVE) : undefined,
          ),
        )
        .returning({ id: runs.id });
      const fenced = db.$with('fenced', { id: runs.id }).as(write.getSQL());
      return db
        .with(fenced)
        .select({ ok: sql<boolean>`agentry_assert(count(*) = 1, ${STALE})` })
        .from(fenced);
    });
    // Bounded: the attempts' writes update a handful of column sets.
    if (fenceChecks.size < 32) fenceChecks.set(shape, check);
  }
  return check;
}

const fenceChecks = new Map<string, (db: Db, values: Record<string, unknown>) => Promise<unknown>>();

/** The fence checks each open transaction has sent, by `<run id>:<fence>`. */
const fencesChecked = new WeakMap<Tx, Map<string, Promise<void>>>();

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
 * Marks queued runs the sweeper found legitimately waiting (behind their conversation's earlier
 * run, or parked by the scheduler) as seen, so its next passes look at other runs first: each pass
 * reads a bounded page, oldest sign of life first, whatever the backlog.
 *
 * @example
 * await touchWaitingRuns(db, tenantId, [run.id]);
 */
export async function touchWaitingRuns(db: Db, tenantId: string, runIds: string[]): Promise<void> {
  if (runIds.length === 0) return;
  await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(runs)
      .set({ heartbeatAt: sql`now()` })
      .where(and(inArray(runs.id, runIds), eq(runs.tenantId, tenantId), eq(runs.status, 'queued'))),
  );
}

/**
 * Records a tool call as started unless it already was; returns the record as it stands, so the
 * caller sees a completed result from an earlier attempt instead of sending again.
 */
export async function startToolCall(
  db: Db,
  input: { runId: string; tenantId: string; toolCallId: string; name: string; idempotencyKey: string },
  fence: number,
): Promise<{ record: ToolCallRecord; created: boolean }> {
  return withTenantScope(db, input.tenantId, async (tx) => {
    const fenced = assertFence(tx, input.runId, fence);
    // One statement either way (nothing read first, so it can travel with a COMMIT sent ahead): a
    // new record is inserted, an existing one comes back as it stands (the no-op update leaves it
    // as it was; `xmax` is 0 only for a row this statement inserted).
    const [row] = await behindFence(fenced, toolCallStart(tx, input));
    const { created, ...record } = row!;
    return { record, created };
  });
}

const toolCallStart = prebuilt((db) =>
  db
    .insert(toolCalls)
    .values({
      runId: sql.placeholder('runId'),
      toolCallId: sql.placeholder('toolCallId'),
      tenantId: sql.placeholder('tenantId'),
      name: sql.placeholder('name'),
      idempotencyKey: sql.placeholder('idempotencyKey'),
      status: 'started',
    })
    .onConflictDoUpdate({ target: [toolCalls.runId, toolCalls.toolCallId], set: { runId: sql`excluded.run_id` } })
    .returning({ ...getTableColumns(toolCalls), created: sql<boolean>`(xmax = 0)` }),
);

export async function completeToolCall(
  db: Db,
  key: { runId: string; tenantId: string; toolCallId: string },
  fence: number,
  result: { output: unknown; isError: boolean; errorCode?: string },
): Promise<void> {
  await withTenantScope(db, key.tenantId, async (tx) => {
    const fenced = assertFence(tx, key.runId, fence);
    const values = { runId: key.runId, toolCallId: key.toolCallId, output: result.output, isError: result.isError };
    const completed = result.errorCode
      ? toolCallFailed(tx, { ...values, errorCode: result.errorCode })
      : toolCallDone(tx, values);
    await behindFence(fenced, completed);
  });
}

/** A call's completion; `errorCode` null is a shape of its own (a placeholder cannot carry SQL NULL through a column encoder). */
function buildCompletion(db: Db, withCode: boolean) {
  return db
    .update(toolCalls)
    .set({
      status: 'completed',
      output: slot<unknown>('output'),
      isError: slot<boolean>('isError'),
      errorCode: withCode ? slot<string>('errorCode') : null,
      completedAt: sql`now()`,
    })
    .where(and(eq(toolCalls.runId, sql.placeholder('runId')), eq(toolCalls.toolCallId, sql.placeholder('toolCallId'))));
}

const toolCallDone = prebuilt((db) => buildCompletion(db, false));
const toolCallFailed = prebuilt((db) => buildCompletion(db, true));

/**
 * Ends the run with `status` while the fence is current (and the run in one of `fromStatuses`);
 * false when stale or already final. The waiting-run expiry passes `['waiting']` with the fence the
 * run parked with, so a run answered (or parked again by a newer attempt) meanwhile is left alone.
 */
export async function finishRunFenced(
  db: Db,
  run: RunRef,
  fence: number,
  update: {
    status: RunStatus;
    error?: Run['error'];
    usage?: Run['usage'];
    toolCallCount?: number;
    steps?: Run['steps'];
  },
  fromStatuses: RunStatus[] = ACTIVE,
): Promise<boolean> {
  const rows = await withTenantScope(db, run.tenantId, async (tx) => {
    const updated = await runFinish(update, fromStatuses)(tx, { ...update, runId: run.id, fence });
    // The webhook outbox: committed with the status, or not at all.
    if (updated[0]) await recordRunWebhooks(tx, updated[0]);
    return updated;
  });
  return rows.length > 0;
}

/** What an attempt put off until its end: written with its final status, or not at all. */
export interface FinalWrites {
  messages: Message[];
  completions: Array<{ toolCallId: string; result: { output: unknown; isError: boolean; errorCode?: string } }>;
}

type FinalUpdate = Parameters<typeof finishRunFenced>[3];

/**
 * An attempt's last transaction: what it put off (`writes`), its final status (fenced, from an
 * active status, as `finishRunFenced`) and the id of the conversation's next queued run, all or
 * nothing. `webhooks` is the `webhooks` of the run's agent version's config when the caller has it
 * loaded: when none is subscribed to the status, every check is the database's (a failed fence or
 * status rolls everything back) and the COMMIT is sent ahead — one round trip on Postgres. Otherwise
 * the webhook outbox rows are written too, as `finishRunFenced` does. Undefined when not written:
 * the fence is stale or the run already final.
 *
 * @example
 * const done = await finishAttempt(db, run, fence, { status: 'completed' }, { messages, completions: [] }, { webhooks: config.webhooks });
 * if (done?.nextQueued) await scheduler.submit(runJobData(done.nextQueued));
 */
export async function finishAttempt(
  db: Db,
  run: Pick<Run, 'id' | 'tenantId' | 'conversationId'>,
  fence: number,
  update: FinalUpdate,
  writes: FinalWrites,
  options: { webhooks?: unknown } = {},
): Promise<{ nextQueued: QueuedRun | undefined } | undefined> {
  const quiet = options.webhooks !== undefined && !hasWebhookFor(options.webhooks, update.status);
  const values = Object.fromEntries(Object.entries(update).filter(([, value]) => value !== undefined));
  try {
    return await withTenantScope(db, run.tenantId, async (tx, commitAhead) => {
      const finished = quiet
        ? assertFence(tx, run.id, fence, values, true)
        : runFinish(update, ACTIVE)(tx, { ...values, runId: run.id, fence }).then(async ([row]) => {
            if (!row) throw staleAttempt(run.id);
            await recordRunWebhooks(tx, row);
          });
      const rest = Promise.all([
        insertRunMessages(tx, run, writes.messages),
        ...writes.completions.map(({ toolCallId, result }) =>
          completeToolCall(tx, { runId: run.id, tenantId: run.tenantId, toolCallId }, fence, result),
        ),
        nextQueuedRun(tx, { tenantId: run.tenantId, conversationId: run.conversationId }),
      ]);
      if (quiet) commitAhead();
      const written = await behindFence(finished, rest);
      const next = written.at(-1) as QueuedRun[];
      return { nextQueued: next[0] };
    });
  } catch (error) {
    if (error instanceof AppError && error.code === 'stale_attempt') return undefined;
    throw error;
  }
}

/** A queued run with what its job names (`runJobData`). */
export type QueuedRun = Pick<Run, 'id' | 'tenantId' | 'conversationId' | 'agentId' | 'agentVersion'>;

/** The conversation's oldest queued run (the next to go once the active one ends). */
const nextQueuedRun = prebuilt((db) =>
  db
    .select({
      id: runs.id,
      tenantId: runs.tenantId,
      conversationId: runs.conversationId,
      agentId: runs.agentId,
      agentVersion: runs.agentVersion,
    })
    .from(runs)
    .where(
      and(
        eq(runs.conversationId, sql.placeholder('conversationId')),
        eq(runs.tenantId, sql.placeholder('tenantId')),
        isQueuedRun(runs.status),
      ),
    )
    .orderBy(asc(runs.createdAt), asc(runs.id))
    .limit(1),
);

/** The fenced final update of these columns from these statuses, prebuilt per shape. */
function runFinish(update: Partial<Run>, fromStatuses: RunStatus[]) {
  const columns = Object.keys(update)
    .filter((column) => update[column as keyof Run] !== undefined)
    .sort();
  // A column set to null is part of the shape, not a value (see `fenceCheck`).
  const isNull = (column: string) => update[column as keyof Run] === null;
  const shape = `${columns.map((c) => (isNull(c) ? `${c}=null` : c)).join(',')}|${fromStatuses.join(',')}`;
  let finish = runFinishes.get(shape);
  if (!finish) {
    finish = prebuilt((db) =>
      db
        .update(runs)
        .set({
          ...Object.fromEntries(columns.map((column) => [column, isNull(column) ? null : sql.placeholder(column)])),
          finishedAt: sql`now()`,
          heartbeatAt: sql`now()`,
        })
        .where(
          and(
            eq(runs.id, sql.placeholder('runId')),
            eq(runs.fence, sql.placeholder('fence')),
            inArray(runs.status, fromStatuses),
          ),
        )
        .returning(),
    );
    if (runFinishes.size < 32) runFinishes.set(shape, finish);
  }
  return finish;
}

const runFinishes = new Map<string, (db: Db, values: Record<string, unknown>) => Promise<Run[]>>();

/** Ends a run that no attempt holds (cancelled while queued, swept after a timeout). */
export async function finishRunUnfenced(
  db: Db,
  run: RunRef,
  update: { status: RunStatus; error?: Run['error'] },
  fromStatuses: RunStatus[] = ACTIVE,
): Promise<boolean> {
  const rows = await withTenantScope(db, run.tenantId, async (tx) => {
    const updated = await tx
      .update(runs)
      .set({ ...update, finishedAt: sql`now()`, fence: sql`${runs.fence} + 1` })
      .where(and(eq(runs.id, run.id), inArray(runs.status, fromStatuses)))
      .returning();
    if (updated[0]) await recordRunWebhooks(tx, updated[0]);
    return updated;
  });
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

/**
 * The conversation's active runs, oldest first. Handed to the driver at once, so in a transaction
 * it runs after the statements issued before it (and travels with them on Postgres).
 */
export async function activeRuns(db: Db, tenantId: string, conversationId: string): Promise<Run[]> {
  return withTenantScope(db, tenantId, (tx) => activeRunsOf(tx, { tenantId, conversationId }));
}

const activeRunsOf = prebuilt((db) =>
  db
    .select()
    .from(runs)
    .where(
      and(
        eq(runs.conversationId, sql.placeholder('conversationId')),
        eq(runs.tenantId, sql.placeholder('tenantId')),
        isActiveRun(runs.status),
      ),
    )
    .orderBy(asc(runs.createdAt), asc(runs.id)),
);

/** Marks a run for cancellation; returns the run as it is now (undefined when not the tenant's). */
export async function requestCancel(db: Db, tenantId: string, runId: string): Promise<Run | undefined> {
  const [run] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(runs)
      .set({ cancelRequestedAt: sql`coalesce(${runs.cancelRequestedAt}, now())` })
      .where(and(eq(runs.id, runId), eq(runs.tenantId, tenantId)))
      .returning(),
  );
  return run;
}

/** A run the sweeper looks at, and whether an earlier run of its conversation is still active. */
export type StaleRun = Run & { behindEarlierRun: boolean };

/**
 * Runs that look abandoned: queued or running, without a sign of life (heartbeat, or creation)
 * since `before`; the longest silent first, at most `limit` (read through `runs_active_idx`; no
 * index on the heartbeat, which would take the HOT update from every heartbeat). `behindEarlierRun`:
 * a queued run waiting for its conversation's earlier active run, which wakes it when it ends. System scope: the sweeper looks across tenants
 * (it then works on each run in its own tenant).
 */
export async function staleRuns(db: Db, before: Date, limit = 100): Promise<StaleRun[]> {
  const behind = sql<boolean>`exists (${earlierActiveRun(db)})`;
  const rows = await withSystemScope(db, 'stuck-run sweeper', (tx) =>
    tx
      .select({ run: runs, behindEarlierRun: behind })
      .from(runs)
      .where(
        and(
          sql`${runs.status} in ('queued', 'running')`,
          // An ISO string with a cast: the postgres driver cannot bind a Date inside raw SQL (PGlite can).
          sql`coalesce(${runs.heartbeatAt}, ${runs.createdAt}) < ${before.toISOString()}::timestamptz`,
        ),
      )
      .orderBy(sql`coalesce(${runs.heartbeatAt}, ${runs.createdAt})`)
      .limit(limit),
  );
  return rows.map((row) => ({ ...row.run, behindEarlierRun: Boolean(row.behindEarlierRun) }));
}

/** A waiting run past its deadline, with the wait it was allowed (seconds). */
export type ExpiredWaitingRun = Run & { waitingTimeoutSeconds: number };

/**
 * Waiting runs nobody answered in time: parked (a run's `heartbeat_at` is set when it parks) for
 * longer than its agent version's `limits.waiting_timeout`, or `defaultTimeoutSeconds` when the
 * config sets none. Compared on the database clock, which wrote the parking time.
 * System scope: the sweeper looks across tenants (each run is then ended in its own tenant's scope).
 *
 * @example
 * for (const run of await expiredWaitingRuns(db, 86_400)) await finishRunFenced(db, run, run.fence, …, ['waiting']);
 */
export async function expiredWaitingRuns(
  db: Db,
  defaultTimeoutSeconds: number,
  limit = 100,
): Promise<ExpiredWaitingRun[]> {
  const configured = sql`${agentVersions.config} -> 'limits' -> 'waiting_timeout'`;
  const timeout = sql<number>`coalesce(case when jsonb_typeof(${configured}) = 'number' then (${configured})::text::double precision end, ${defaultTimeoutSeconds}::double precision)`;
  const rows = await withSystemScope(db, 'waiting-run expiry', (tx) =>
    tx
      .select({ run: runs, waitingTimeoutSeconds: timeout.mapWith(Number) })
      .from(runs)
      .leftJoin(
        agentVersions,
        and(
          eq(agentVersions.tenantId, runs.tenantId),
          eq(agentVersions.agentId, runs.agentId),
          eq(agentVersions.version, runs.agentVersion),
        ),
      )
      .where(
        and(
          eq(runs.status, 'waiting'),
          sql`coalesce(${runs.heartbeatAt}, ${runs.createdAt}) < now() - make_interval(secs => ${timeout})`,
        ),
      )
      .orderBy(asc(runs.createdAt))
      .limit(limit),
  );
  return rows.map((row) => ({ ...row.run, waitingTimeoutSeconds: row.waitingTimeoutSeconds }));
}

/**
 * Pauses a run for a person's answer (client tool or approval), while the fence is current.
 * `pending` (the calls waiting for an answer) goes into the `run.waiting` webhook payload.
 */
export async function markRunWaiting(
  db: Db,
  run: RunRef,
  fence: number,
  pending: readonly unknown[] = [],
): Promise<boolean> {
  const rows = await withTenantScope(db, run.tenantId, async (tx) => {
    const updated = await tx
      .update(runs)
      // The heartbeat marks when it parked: the waiting-run expiry counts from it.
      .set({ status: 'waiting', heartbeatAt: sql`now()` })
      .where(and(eq(runs.id, run.id), eq(runs.fence, fence), inArray(runs.status, ACTIVE)))
      .returning();
    if (updated[0]) await recordRunWebhooks(tx, updated[0], { pending });
    return updated;
  });
  return rows.length > 0;
}

/** The recorded state of some of a run's tool calls. */
export async function toolCallRecords(db: Db, run: RunRef, toolCallIds: string[]): Promise<ToolCallRecord[]> {
  if (toolCallIds.length === 0) return [];
  return withTenantScope(db, run.tenantId, (tx) =>
    tx
      .select()
      .from(toolCalls)
      .where(and(eq(toolCalls.runId, run.id), inArray(toolCalls.toolCallId, toolCallIds))),
  );
}

export type HumanAnswer =
  | { toolCallId: string; name: string; kind: 'client'; output: unknown; isError: boolean }
  | { toolCallId: string; name: string; kind: 'approval'; decision: 'approve' | 'decline' };

/**
 * Records people's answers to a waiting run's calls and queues the run again, in one transaction.
 * False when the run is not waiting (already answered, cancelled, …).
 */
export async function answerWaitingRun(db: Db, run: RunRef, answers: HumanAnswer[]): Promise<boolean> {
  return withTenantScope(db, run.tenantId, async (tx) => {
    const resumed = await tx
      .update(runs)
      // A fresh heartbeat: queued again now, not abandoned since it parked (stuck-run sweeper).
      .set({ status: 'queued', heartbeatAt: sql`now()` })
      .where(and(eq(runs.id, run.id), eq(runs.tenantId, run.tenantId), eq(runs.status, 'waiting')))
      .returning({ id: runs.id });
    if (resumed.length === 0) return false;
    for (const answer of answers) {
      await tx
        .insert(toolCalls)
        .values({
          runId: run.id,
          tenantId: run.tenantId,
          toolCallId: answer.toolCallId,
          name: answer.name,
          idempotencyKey: `${run.id}:${answer.toolCallId}`,
          ...(answer.kind === 'client'
            ? { status: 'completed' as const, output: answer.output, isError: answer.isError, completedAt: sql`now()` }
            : { status: answer.decision === 'approve' ? ('approved' as const) : ('declined' as const) }),
        })
        .onConflictDoNothing();
    }
    return true;
  });
}
