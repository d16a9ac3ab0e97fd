import { checkpointRun, completeToolCall, type Db, type Run, type Tx, withTenantScope } from '@agentry/db';
import type { Message } from '@agentry/llm';

/** A run update a checkpoint may carry (the step records and the usage so far). */
export type DeferredRunUpdate = Partial<Pick<Run, 'steps' | 'usage' | 'toolCallCount'>>;

/** A tool call's settled outcome, to be recorded as completed. */
export interface DeferredCompletion {
  toolCallId: string;
  result: { output: unknown; isError: boolean; errorCode?: string };
}

/** The writes an attempt has put off, taken together by the next transaction. */
export interface DeferredWrites {
  messages: Message[];
  update: DeferredRunUpdate;
  completions: DeferredCompletion[];
}

export interface WriteBehind {
  /** Puts writes off until the next `commit` (messages keep their order; a later update wins). */
  defer(writes: Partial<DeferredWrites>): void;
  /** Whether anything is put off. */
  pending(): boolean;
  /**
   * Runs `work` in one fenced transaction with everything put off so far, and resolves only once
   * every write put off before the call is committed (by this transaction or an earlier one still
   * in flight): what the caller does next may rely on it, e.g. send a tool call.
   */
  commit<T>(work?: (tx: Tx, writes: DeferredWrites) => Promise<T>): Promise<T | undefined>;
  /**
   * For the attempt's last write (its final status), which takes the put-off writes into its own
   * transaction: waits for transactions carrying earlier ones, then hands over what is still put
   * off. When one of them failed, what was put off cannot be written (after a lost write it would
   * leave a gap in the transcript): `'throw'` (the default) rejects with that failure — the attempt
   * cannot end as if its writes had landed —, `'drop'` hands over nothing (for a final status that
   * says the attempt failed).
   */
  drain(onFailure?: 'throw' | 'drop'): Promise<DeferredWrites>;
}

/**
 * An attempt's write-behind buffer: writes that nothing acts on at once wait for the next write
 * that must happen before the attempt acts (sends a tool call, calls the model, ends the run) and
 * travel in its transaction. The model's message joins the first tool call's start record, a
 * step's tool results join the next model call's checkpoint or the run's final status: a two-step
 * run commits in 3 transactions after its claim instead of 7. Durability is unchanged where it
 * matters: nothing is sent or asked before what led to it is committed; a crash loses at most
 * writes that a resumed attempt redoes without side effects (the answer of a final model call,
 * which is asked again).
 *
 * @example
 * const writes = createWriteBehind(db, run, fence);
 * writes.defer({ messages: [assistant] });
 * await writes.commit((tx) => startToolCall(tx, call, fence)); // message and start record, one transaction
 */
export function createWriteBehind(
  db: Db,
  run: Pick<Run, 'id' | 'tenantId' | 'conversationId'>,
  fence: number,
): WriteBehind {
  let deferred = empty();
  /** The last transaction that carried put-off writes, settled or not; rejects when it failed. */
  let carrier: Promise<unknown> = Promise.resolve();
  let failed = false;

  function take(): DeferredWrites {
    const taken = deferred;
    deferred = empty();
    return taken;
  }

  async function write<T>(
    writes: DeferredWrites,
    work: ((tx: Tx, writes: DeferredWrites) => Promise<T>) | undefined,
  ): Promise<T | undefined> {
    return withTenantScope(db, run.tenantId, async (tx, commitAhead) => {
      const parts: Promise<unknown>[] = [];
      if (writes.messages.length > 0 || Object.keys(writes.update).length > 0) {
        parts.push(checkpointRun(tx, run, fence, writes.messages, writes.update));
      }
      for (const { toolCallId, result } of writes.completions) {
        parts.push(completeToolCall(tx, { runId: run.id, tenantId: run.tenantId, toolCallId }, fence, result));
      }
      const done = Promise.all([work?.(tx, writes), ...parts]);
      // Every write here is fenced by the database and decides nothing from what it reads back:
      // the COMMIT travels with them (one round trip).
      commitAhead();
      const [outcome] = await done;
      return outcome;
    });
  }

  async function commit<T>(work?: (tx: Tx, writes: DeferredWrites) => Promise<T>): Promise<T | undefined> {
    const writes = take();
    const before = carrier;
    if (isEmpty(writes)) {
      const outcome = work ? await write(writes, work) : undefined;
      // Writes put off earlier may still be on their way in another transaction (or lost).
      await before;
      return outcome;
    }
    // Carriers go one after the other, and none after a failed one: the transcript keeps the order
    // the writes were put off in, without gaps.
    const committed = before.then(() => write(writes, work));
    carrier = committed;
    committed.catch(() => {
      failed = true;
    });
    return committed;
  }

  return {
    defer(writes) {
      if (writes.messages) deferred.messages.push(...writes.messages);
      if (writes.update) Object.assign(deferred.update, writes.update);
      if (writes.completions) deferred.completions.push(...writes.completions);
    },
    pending: () => !isEmpty(deferred),
    commit,
    async drain(onFailure = 'throw') {
      await carrier.catch((error: unknown) => {
        if (onFailure === 'throw') throw error;
      });
      const writes = take();
      return failed ? empty() : writes;
    },
  };
}

function empty(): DeferredWrites {
  return { messages: [], update: {}, completions: [] };
}

function isEmpty(writes: DeferredWrites): boolean {
  return writes.messages.length === 0 && Object.keys(writes.update).length === 0 && writes.completions.length === 0;
}
