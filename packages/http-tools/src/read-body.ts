import { isEgressError } from './egress/egress-error.ts';

/**
 * Reads at most `maxBytes` of a response body, then stops the download, so a huge or endless
 * response cannot exhaust memory. A body the egress guard cut off (`egress_response_too_large`)
 * counts as truncated.
 *
 * @example
 * const { text, truncated } = await readBoundedText(response, 1_000_000);
 */
export async function readBoundedText(
  response: Response,
  maxBytes: number,
): Promise<{ text: string; truncated: boolean; bytes: number }> {
  if (!response.body) return { text: '', truncated: false, bytes: 0 };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let truncated = false;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (error) {
      if (!isEgressError(error) || error.code !== 'egress_response_too_large') throw error;
      truncated = true;
      break;
    }
    const { done, value } = chunk;
    if (done) break;
    const room = maxBytes - bytes;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      bytes += room;
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    bytes += value.byteLength;
  }
  return { text: new TextDecoder().decode(Buffer.concat(chunks)), truncated, bytes };
}
