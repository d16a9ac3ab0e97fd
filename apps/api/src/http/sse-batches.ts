/** One Server-Sent Event: its type (none: a plain `message`), its data, and (for events of a bus stream) its id. */
export interface SseMessage {
  event?: string;
  data: string;
  id?: string;
}

const LINE_BREAK = /[\r\n]/;

/**
 * The text of one SSE frame, as Hono's `writeSSE` writes it (`event:`, `data:` per line, `id:`),
 * for relays that send many frames in one write.
 *
 * @example
 * sseFrame({ id: '1-0', event: 'text-delta', data: '{"delta":"Hi"}' });
 * // 'event: text-delta\ndata: {"delta":"Hi"}\nid: 1-0\n\n'
 */
export function sseFrame(message: SseMessage): string {
  // A line break would end the field early and let the rest pose as other fields.
  if (
    (message.event !== undefined && LINE_BREAK.test(message.event)) ||
    (message.id !== undefined && LINE_BREAK.test(message.id))
  ) {
    throw new Error('An SSE event or id must not contain a line break');
  }
  const data = LINE_BREAK.test(message.data)
    ? message.data
        .split(/\r\n|\r|\n/)
        .map((line) => `data: ${line}`)
        .join('\n')
    : `data: ${message.data}`;
  const event = message.event === undefined ? '' : `event: ${message.event}\n`;
  return `${event}${data}\n${message.id === undefined ? '' : `id: ${message.id}\n`}\n`;
}

const TICK = Symbol('tick');

/**
 * The items of `source` in batches: all that it yields before the event loop's next turn (what one
 * bus read returned: a page of history, the entries of one shared `XREAD`) come as one array, so a
 * relay writes them to its client in one write instead of one each. Nothing waits for a batch to
 * fill: an item that is not there by the next turn starts the next batch. A failure of `source`
 * comes after the batch of the items before it.
 *
 * @example
 * for await (const records of perTick(bus.subscribe(runId, { after }))) {
 *   await stream.write(records.map((r) => sseFrame({ id: r.id, event: r.event.type, data: r.json! })).join(''));
 * }
 */
export async function* perTick<T>(source: AsyncIterable<T>): AsyncGenerator<T[]> {
  const iterator = source[Symbol.asyncIterator]();
  // The pull that the last batch's turn ended before it settled: the next batch starts with it.
  let pending: Promise<IteratorResult<T>> | undefined;
  let exhausted = false;
  try {
    for (;;) {
      const first = await (pending ?? iterator.next());
      pending = undefined;
      if (first.done) {
        exhausted = true;
        return;
      }
      const batch: T[] = [first.value];
      const turn = new Promise<typeof TICK>((resolve) => setImmediate(resolve, TICK));
      let failure: { error: unknown } | undefined;
      for (;;) {
        pending = iterator.next();
        const step = await Promise.race([pending, turn]).catch((error: unknown) => {
          failure = { error };
          return undefined;
        });
        if (step === TICK) break;
        pending = undefined;
        if (!step || step.done) {
          exhausted = true;
          break;
        }
        batch.push(step.value);
      }
      yield batch;
      if (failure) throw failure.error;
      if (exhausted) return;
    }
  } finally {
    if (!exhausted) {
      const closing = Promise.resolve(iterator.return?.());
      // A pull still in flight settles first: waiting for it here could wait for the source's next item.
      if (pending) closing.catch(() => {});
      else await closing;
    }
  }
}
