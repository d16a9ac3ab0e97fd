import type { FakeToolCall } from './types.ts';

/** Default number of characters per streamed text delta. */
export const DEFAULT_CHUNK_SIZE = 8;

/**
 * Splits text into pieces of at most `size` characters (whole code points, so no broken emoji).
 *
 * @example
 * splitText('abcdef', 4); // ['abcd', 'ef']
 */
export function splitText(text: string, size = DEFAULT_CHUNK_SIZE): string[] {
  const chars = Array.from(text);
  const step = Math.max(1, Math.floor(size));
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += step) out.push(chars.slice(i, i + step).join(''));
  return out;
}

/**
 * Splits tool-call arguments into at least two fragments whenever possible, so streaming clients
 * always have to reassemble them (a single fragment would hide reassembly bugs).
 *
 * @example
 * splitArguments('{"a":1}', 8); // ['{"a"', ':1}'] — two pieces although it fits in one chunk
 */
export function splitArguments(args: string, size = DEFAULT_CHUNK_SIZE): string[] {
  const length = Array.from(args).length;
  return splitText(args, Math.min(size, Math.ceil(length / 2)));
}

/**
 * The wire text of a tool call's arguments: strings verbatim (tests may want malformed JSON), anything else as JSON.
 *
 * @example
 * argumentsText({ name: 'f', arguments: { a: 1 } }); // '{"a":1}'
 */
export function argumentsText(call: FakeToolCall): string {
  if (typeof call.arguments === 'string') return call.arguments;
  return JSON.stringify(call.arguments ?? {});
}

/**
 * The arguments as a JSON value, for non-streaming bodies where the wire carries parsed JSON (Anthropic `input`).
 * A string that is not valid JSON stays a string: the only way to hand a malformed value through that field.
 *
 * @example
 * argumentsValue({ name: 'f', arguments: '{"a":1}' }); // { a: 1 }
 */
export function argumentsValue(call: FakeToolCall): unknown {
  if (typeof call.arguments !== 'string') return call.arguments ?? {};
  try {
    return JSON.parse(call.arguments);
  } catch {
    return call.arguments;
  }
}
