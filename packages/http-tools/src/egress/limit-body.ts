import { EgressError } from './egress-error.ts';

/**
 * Passes at most `maxBytes` of `source` through; a longer body delivers its first `maxBytes` and
 * then fails with `egress_response_too_large` (so readers can tell a cut body from a complete one).
 * `onEnd` runs once when the body ends, fails or is cancelled.
 *
 * @example
 * const body = limitBody(response.body, 1_000_000);
 */
export function limitBody(
  source: ReadableStream<Uint8Array>,
  maxBytes: number,
  onEnd: () => void = () => {},
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let bytes = 0;
  let overflowed = false;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (overflowed) {
          controller.error(
            new EgressError('egress_response_too_large', `The tool’s response is larger than ${maxBytes} bytes.`),
          );
          return;
        }
        try {
          const { done, value } = await reader.read();
          if (done) {
            end();
            controller.close();
            return;
          }
          const room = maxBytes - bytes;
          if (value.byteLength > room) {
            overflowed = true;
            bytes = maxBytes;
            await reader.cancel().catch(() => {});
            end();
            // Enqueue the part that fits; the next pull reports the overflow (erroring now would drop it).
            if (room > 0) controller.enqueue(value.subarray(0, room));
            else
              controller.error(
                new EgressError('egress_response_too_large', `The tool’s response is larger than ${maxBytes} bytes.`),
              );
            return;
          }
          bytes += value.byteLength;
          controller.enqueue(value);
        } catch (error) {
          end();
          controller.error(error);
        }
      },
      async cancel(reason) {
        end();
        await reader.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}
