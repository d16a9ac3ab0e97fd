import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createInterruptible, STOPPED } from './interruptible.ts';
import { compareStreamIds } from './stream-ids.ts';
import type { RunEvent, RunEventRecord } from './types.ts';

/**
 * A subscriber's side of the shared read: the records handed to it, at most `inboxCapacity`.
 * The subscriber drains `records`; the reader appends and calls `notify`.
 */
export interface Inbox {
  readonly key: string;
  /** Highest id the subscriber has taken (yielded or queued); the shared read adds only later ones. */
  floor: string;
  readonly records: RunEventRecord[];
  /** True while the shared read feeds it; false after an overflow, its final event or an error. */
  attached: boolean;
  /** A Redis error reply for its stream, for the subscriber to throw. */
  error?: unknown;
  /** Wakes the subscriber: records arrived, or it was detached. */
  notify(): void;
}

export interface SharedReaderOptions {
  /** The bus's command connection: readers are duplicated from it, wake-ups are written on it. */
  writer: Redis;
  prefix: string;
  /** Blocking connections at most (streams are spread over them, fewest first). */
  connections: number;
  blockMs: number;
  /** Entries per stream per read (XREAD COUNT). */
  count: number;
  /** Records an inbox holds before it is detached to catch up on its own. */
  inboxCapacity: number;
  /**
   * Pause between two reads of one connection, per stream it reads (ms; default 0.01), at most
   * `maxReadPauseMs` (default 20). See {@link readPauseMs}.
   */
  readPausePerStreamMs?: number;
  maxReadPauseMs?: number;
}

export interface SharedReaderStats {
  /** Run streams in the shared blocking reads. */
  streams: number;
  /** Inboxes fed by the shared reads. */
  following: number;
  readerConnections: number;
}

/**
 * One blocking `XREAD COUNT n BLOCK ms STREAMS k1 k2 … id1 id2 …` per connection, for every run
 * followed in this process: each run stream is read once, from one position, and its entries are
 * handed to the inboxes of that run's subscribers.
 *
 * - A new stream must not wait for a read in progress to time out, so every reader also reads its
 *   own wake-up stream, and `attach` writes an entry there (on the command connection). The read
 *   names the wake-up stream by the last id it saw, so an entry written just before the read is
 *   queued is still seen: no race, unlike `CLIENT UNBLOCK` (which misses a read not yet blocked,
 *   and needs the client id again after each reconnect), and no polling, unlike a short BLOCK.
 * - A full inbox is detached rather than waited for: the read goes on for the others, and the
 *   subscriber catches up with XRANGE from its own last id once it has drained (a stream nobody
 *   follows any more leaves the read). Memory is bounded by the capacity per subscriber.
 * - Readers never give up on a connection (`maxRetriesPerRequest: null`): ioredis re-sends the
 *   pending read after a reconnect, from the positions kept here.
 *
 * @example
 * const reader = createSharedReader({ writer, prefix, connections: 2, blockMs: 5000, count: 256, inboxCapacity: 512 });
 * const position = reader.attach(inbox); // entries after `position` arrive in inbox.records
 */
export interface SharedReader {
  /** Joins the inbox to its stream's shared read and returns the position that read has reached. */
  attach(inbox: Inbox): string;
  /** Stops feeding the inbox (idempotent); a stream with no inbox left leaves the read. */
  detach(inbox: Inbox): void;
  stats(): SharedReaderStats;
  close(): Promise<void>;
}

interface Feed {
  readonly key: string;
  /** Last id the shared read has handed out. */
  position: string;
  readonly inboxes: Set<Inbox>;
  readonly reader: Reader;
}

interface Reader {
  readonly feeds: Set<Feed>;
  add(feed: Feed): void;
  remove(feed: Feed): void;
  close(): Promise<void>;
}

type Entry = [id: string, fields: string[]];
type XReadReply = Array<[key: string, entries: Entry[]]>;

export function createSharedReader(options: SharedReaderOptions): SharedReader {
  const feeds = new Map<string, Feed>();
  const following = new Map<Inbox, Feed>();
  const readers: Reader[] = [];
  let closed = false;

  const detach = (inbox: Inbox) => {
    inbox.attached = false;
    const feed = following.get(inbox);
    if (!feed) return;
    following.delete(inbox);
    feed.inboxes.delete(inbox);
    if (feed.inboxes.size === 0) {
      feeds.delete(feed.key);
      feed.reader.remove(feed);
    }
  };

  const release = (inbox: Inbox, error?: unknown) => {
    if (error !== undefined) inbox.error = error;
    detach(inbox);
    inbox.notify();
  };

  const deliver = (feed: Feed, entries: Entry[]) => {
    for (const entry of entries) {
      if (compareStreamIds(entry[0], feed.position) <= 0) continue;
      feed.position = entry[0];
      const record = decodeEntry(entry);
      for (const inbox of feed.inboxes) {
        if (compareStreamIds(record.id, inbox.floor) <= 0) continue;
        // A slow subscriber is let go instead of holding the read: it catches up on its own.
        if (inbox.records.length >= options.inboxCapacity) {
          release(inbox);
          continue;
        }
        inbox.records.push(record);
        inbox.floor = record.id;
        // After its final event a subscriber needs nothing more from the read.
        if (record.event.final) release(inbox);
        else inbox.notify();
      }
      if (feed.inboxes.size === 0) return;
    }
  };

  const fail = (feed: Feed, error: unknown) => {
    for (const inbox of [...feed.inboxes]) release(inbox, error);
  };

  const pick = (): Reader => {
    let best: Reader | undefined;
    for (const reader of readers) if (!best || reader.feeds.size < best.feeds.size) best = reader;
    if (best && (best.feeds.size === 0 || readers.length >= options.connections)) return best;
    const started = startReader(options, { deliver, fail });
    readers.push(started);
    return started;
  };

  return {
    attach(inbox) {
      if (closed) throw new Error('The run event bus is closed');
      detach(inbox);
      let feed = feeds.get(inbox.key);
      const isNew = !feed;
      feed ??= { key: inbox.key, position: inbox.floor, inboxes: new Set(), reader: pick() };
      feed.inboxes.add(inbox);
      following.set(inbox, feed);
      inbox.attached = true;
      if (compareStreamIds(feed.position, inbox.floor) > 0) inbox.floor = feed.position;
      if (isNew) {
        feeds.set(feed.key, feed);
        feed.reader.add(feed);
      }
      return feed.position;
    },
    detach,
    stats() {
      return { streams: feeds.size, following: following.size, readerConnections: readers.length };
    },
    async close() {
      closed = true;
      for (const inbox of [...following.keys()]) release(inbox);
      await Promise.all(readers.map((reader) => reader.close()));
      readers.length = 0;
    },
  };
}

/** An XRANGE/XREAD entry (`e` holds the JSON) as a record. */
export function decodeEntry([id, fields]: Entry): RunEventRecord {
  const json = fields[1] ?? '{}';
  try {
    return { id, event: JSON.parse(json) as RunEvent, json };
  } catch {
    // Never written by this bus; kept as a placeholder so ids still advance past it.
    return { id, event: { type: 'unreadable-event' } };
  }
}

/** Whether Redis answered with an error (as opposed to a connection failing). */
export function isReplyError(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError';
}

/** The delay before retrying after the `failures`-th connection error in a row. */
export function backoffMs(failures: number): number {
  return Math.min(50 * 2 ** Math.min(failures, 6), 2000);
}

const WAKE_TTL_SECONDS = 3600;

/**
 * How long a reader waits after a read before sending the next. Every read names all the streams
 * of its connection, so back-to-back reads under load (each answered at once by whichever stream
 * got an entry) cost streams × events: with 1,000 open streams at a model's pace, the API spent a
 * core on reads of 2,000 arguments, each carrying a few entries. A pause proportional to the
 * streams read (0.01 ms each: 10 ms for 1,000, nothing worth a timer below 100) lets each read
 * carry the entries of many streams, bounding the read work per second whatever the number of
 * streams, for at most `max` ms more on an event's way to its client.
 *
 * @example
 * readPauseMs(1000, 0.01, 20); // 10
 */
export function readPauseMs(streams: number, perStreamMs: number, maxMs: number): number {
  const pause = Math.min(maxMs, streams * perStreamMs);
  return pause < 1 ? 0 : pause;
}

function startReader(
  options: SharedReaderOptions,
  handlers: { deliver(feed: Feed, entries: Entry[]): void; fail(feed: Feed, error: unknown): void },
): Reader {
  const { writer } = options;
  const connection = writer.duplicate({
    connectionName: `${options.prefix}:run-events:reader`,
    maxRetriesPerRequest: null,
    enableAutoPipelining: false,
  });
  connection.on('error', () => {});
  const wakeKey = `${options.prefix}:run-events:wake:${randomUUID()}`;
  let wakeId = '0-0';
  /** When the wake-up stream's expiry was last set (0: to be set with the next wake-up). */
  let expiredAt = 0;
  const feeds = new Set<Feed>();
  const pause = createInterruptible();
  let reading = false;
  let woken = false;
  let closed = false;
  let idle: (() => void) | undefined;

  const wake = () => {
    if (!reading) {
      // Between reads the next one picks the new stream up by itself.
      const resume = idle;
      idle = undefined;
      resume?.();
      return;
    }
    if (woken) return;
    woken = true;
    writer.xadd(wakeKey, 'MAXLEN', '1', '*', 'w', '1').catch(() => {});
    // XADD keeps a key's expiry: it is set again only when half of it has gone (the key outlives a
    // dead process by at most an hour), or when the connection came back (a restarted Redis may
    // have lost it), not with every new subscription.
    const now = Date.now();
    if (now - expiredAt < (WAKE_TTL_SECONDS * 1000) / 2) return;
    expiredAt = now;
    writer.expire(wakeKey, WAKE_TTL_SECONDS).catch(() => {
      expiredAt = 0;
    });
  };

  // A wake-up written while Redis was away may have failed: send one again once back.
  let connectedBefore = false;
  connection.on('ready', () => {
    expiredAt = 0;
    if (connectedBefore && reading) {
      woken = false;
      wake();
    }
    connectedBefore = true;
  });

  /** After an error reply, finds the streams that cause it so the others go on being read. */
  const isolate = async (batch: Feed[], error: unknown) => {
    for (const feed of batch) {
      if (!feeds.has(feed)) continue;
      try {
        await writer.call('XREAD', 'COUNT', '1', 'STREAMS', feed.key, feed.position);
      } catch (probeError) {
        if (isReplyError(probeError)) handlers.fail(feed, probeError);
      }
    }
    // Not one stream alone: the error is the read's, so its subscribers hear of it.
    if (batch.every((feed) => feeds.has(feed))) for (const feed of batch) handlers.fail(feed, error);
  };

  const perStreamMs = options.readPausePerStreamMs ?? 0.01;
  const maxPauseMs = options.maxReadPauseMs ?? 20;

  const loop = async () => {
    let failures = 0;
    while (!closed) {
      if (feeds.size === 0) {
        await new Promise<void>((resolve) => {
          idle = resolve;
        });
        continue;
      }
      const batch = [...feeds];
      const byKey = new Map(batch.map((feed) => [feed.key, feed]));
      const args = [
        'COUNT',
        String(options.count),
        'BLOCK',
        String(options.blockMs),
        'STREAMS',
        ...byKey.keys(),
        wakeKey,
        ...batch.map((feed) => feed.position),
        wakeId,
      ];
      reading = true;
      woken = false;
      let reply: XReadReply | null;
      try {
        // Interruptible: a read queued while Redis is away never settles once `close` has
        // disconnected a connection waiting to reconnect (ioredis flushes nothing then).
        const answer = await pause.wait(connection.call('XREAD', ...args) as Promise<XReadReply | null>);
        if (answer === STOPPED) return;
        reply = answer;
        failures = 0;
      } catch (error) {
        reading = false;
        if (closed) return;
        if (isReplyError(error)) await isolate(batch, error);
        else if ((await pause.sleep(backoffMs(failures++))) === STOPPED) return;
        continue;
      }
      reading = false;
      for (const [key, entries] of reply ?? []) {
        if (key === wakeKey) {
          wakeId = entries.at(-1)?.[0] ?? wakeId;
          continue;
        }
        const feed = byKey.get(key);
        // A stream dropped while the read was pending is skipped; a new feed for it reads again.
        if (feed && feeds.has(feed)) handlers.deliver(feed, entries);
      }
      // Streams attached meanwhile join the next read without a wake-up (`reading` is false).
      const pauseMs = readPauseMs(feeds.size, perStreamMs, maxPauseMs);
      if (pauseMs > 0 && (await pause.sleep(pauseMs)) === STOPPED) return;
    }
  };
  const running = loop();

  return {
    feeds,
    add(feed) {
      feeds.add(feed);
      wake();
    },
    remove(feed) {
      // A pending read may still name it: harmless, its answer for the stream is ignored.
      feeds.delete(feed);
    },
    async close() {
      closed = true;
      pause.stop();
      idle?.();
      connection.disconnect();
      await running;
      await writer.del(wakeKey).catch(() => {});
    },
  };
}
