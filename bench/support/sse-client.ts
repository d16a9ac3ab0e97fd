/**
 * The benches' SSE reader: what a browser's EventSource does, minus reconnection, over a `fetch`
 * response (one `event:` and one `data:` line per event is all the servers measured here send).
 */

/**
 * Reads `res`'s server-sent events, calling `onEvent(event, data)` for each until it returns true
 * (then the stream is cancelled); throws when the stream ends first.
 *
 * @example
 * await readSse(res, (event, data) => event === 'done');
 */
export async function readSse(
  res: Response,
  onEvent: (event: string | undefined, data: string) => boolean | undefined,
): Promise<void> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error('the stream ended before the final event');
    buffer += decoder.decode(value, { stream: true });
    for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      if (onEvent(field(block, 'event'), field(block, 'data') ?? '')) {
        await reader.cancel().catch(() => {});
        return;
      }
    }
  }
}

/** The value of the first `name:` line of an event block. */
function field(block: string, name: string): string | undefined {
  const at = block.startsWith(`${name}: `) ? 0 : block.indexOf(`\n${name}: `) + 1;
  if (at === 0 && !block.startsWith(`${name}: `)) return undefined;
  const start = at + name.length + 2;
  const end = block.indexOf('\n', start);
  return block.slice(start, end < 0 ? undefined : end);
}
