import type { Redis } from 'ioredis';
import { createInterruptible, STOPPED } from './interruptible.ts';
import { backoffMs, decodeEntry, type Inbox, isReplyError, type SharedReader } from './shared-reader.ts';
import { canonicalStreamId, compareStreamIds } from './stream-ids.ts';
import { RunEventBusUnavailableError, type RunEventRecord, type SubscribeOptions } from './types.ts';

export interface FollowContext {
  /** Non-blocking commands (XRANGE). */
  writer: Redis;
  reader: SharedReader;
  /** Entries per XRANGE page. */
  pageSize: number;
  /** How to end every open subscription (the bus's `close`); each registers its own. */
  subscriptions: Set<() => void>;
  /** Ends the subscriptions opened with `endWhenUnavailable` when the bus loses its connection. */
  unavailable: Set<(error: RunEventBusUnavailableError) => void>;
  /** Whether the bus knows its connection to be down right now. */
  isUnavailable(): boolean;
}

/**
 * One subscription to a run stream, in three phases that hand over without gap or overlap:
 * 1. on its own, XRANGE pages after its last id (the history, or what it missed while lagging);
 * 2. it joins the shared read, which may already be past its last id: the entries in between
 *    come by XRANGE up to that position, while later ones queue in its inbox;
 * 3. live, from the inbox, until the final event. An inbox that overflowed (the consumer was slow)
 *    was detached by the reader: once drained, the subscription goes back to 1 from its last id.
 * Every id only moves forward, so an entry seen twice (phases overlap by design) is dropped.
 * With `endWhenUnavailable`, a lost connection ends it with {@link RunEventBusUnavailableError}
 * instead of a retry.
 *
 * @example
 * for await (const record of followStream(context, key, { after: lastEventId, signal })) send(record);
 */
export async function* followStream(
  context: FollowContext,
  key: string,
  options: SubscribeOptions,
): AsyncGenerator<RunEventRecord> {
  const outcome: { failure?: RunEventBusUnavailableError } = {};
  yield* follow(context, key, options, outcome);
  // Thrown here, after the subscription's cleanup, rather than from its `finally`.
  if (outcome.failure) throw outcome.failure;
}

async function* follow(
  context: FollowContext,
  key: string,
  options: SubscribeOptions,
  outcome: { failure?: RunEventBusUnavailableError },
): AsyncGenerator<RunEventRecord> {
  const { writer, reader, pageSize } = context;
  const stop = createInterruptible();
  let tail = canonicalStreamId(options.after ?? '0');
  let wakeUp: (() => void) | undefined;
  const inbox: Inbox = {
    key,
    floor: tail,
    records: [],
    attached: false,
    notify() {
      const resume = wakeUp;
      wakeUp = undefined;
      resume?.();
    },
  };
  // Ending frees the subscription's share of the read at once, even if its consumer never pulls again.
  const end = () => {
    stop.stop();
    reader.detach(inbox);
    inbox.records.length = 0;
  };
  options.signal?.addEventListener('abort', end, { once: true });
  context.subscriptions.add(end);
  const fail = (error: RunEventBusUnavailableError) => {
    outcome.failure ??= error;
    end();
  };
  if (options.endWhenUnavailable) {
    context.unavailable.add(fail);
    if (context.isUnavailable()) fail(new RunEventBusUnavailableError('The run event bus has no connection'));
  }
  if (options.signal?.aborted) end();

  /** Entries after `start` up to `end` (inclusive), one page; connection errors are retried. */
  const range = async (start: string, last: string): Promise<RunEventRecord[] | typeof STOPPED> => {
    for (let failures = 0; ; ) {
      try {
        const page = await stop.wait(writer.xrange(key, `(${start}`, last, 'COUNT', pageSize));
        return page === STOPPED ? STOPPED : page.map(decodeEntry);
      } catch (error) {
        if (isReplyError(error)) throw error;
        if (options.endWhenUnavailable) {
          fail(new RunEventBusUnavailableError('The run event bus could not read the run', { cause: error }));
          return STOPPED;
        }
        if ((await stop.sleep(backoffMs(failures++))) === STOPPED) return STOPPED;
      }
    }
  };

  try {
    for (;;) {
      // 1. On its own.
      for (;;) {
        const page = await range(tail, '+');
        if (page === STOPPED) return;
        for (const record of page) {
          tail = record.id;
          yield record;
          if (record.event.final || stop.stopped) return;
        }
        if (page.length < pageSize) break;
      }
      // 2. Joining the shared read.
      inbox.floor = tail;
      const position = reader.attach(inbox);
      while (compareStreamIds(tail, position) < 0) {
        const page = await range(tail, position);
        if (page === STOPPED) return;
        for (const record of page) {
          tail = record.id;
          yield record;
          if (record.event.final || stop.stopped) return;
        }
        if (page.length < pageSize) break;
      }
      // 3. Live.
      for (;;) {
        if (stop.stopped) return;
        const record = inbox.records.shift();
        if (record) {
          if (compareStreamIds(record.id, tail) <= 0) continue;
          tail = record.id;
          yield record;
          if (record.event.final) return;
          continue;
        }
        if (inbox.error !== undefined) throw inbox.error;
        if (!inbox.attached) break;
        const woke = await stop.wait(
          new Promise<void>((resolve) => {
            wakeUp = resolve;
          }),
        );
        if (woke === STOPPED) return;
      }
    }
  } finally {
    wakeUp = undefined;
    options.signal?.removeEventListener('abort', end);
    context.subscriptions.delete(end);
    context.unavailable.delete(fail);
    reader.detach(inbox);
  }
}
