import type { ToolCallPart } from '@agentry/llm';

/** Name given to a call whose payload could not be read at all. */
export const UNREADABLE_CALL_NAME = 'unreadable_tool_call';

/**
 * Reads one call object in any of the shapes models produce: OpenAI style
 * `{ "function": { "name", "arguments": "<json string>" } }`, or flat `{ "name", "arguments" | "parameters" }`.
 * Arguments that are not valid JSON are kept in `rawArguments`, so the loop reports them back.
 *
 * @example
 * callFromObject({ name: 'add', arguments: '{"a":1}' }, () => 'call_1');
 * // { type: 'tool_call', id: 'call_1', name: 'add', arguments: { a: 1 } }
 */
export function callFromObject(value: unknown, newId: () => string): ToolCallPart {
  const object = asRecord(value) ?? {};
  const fn = asRecord(object.function) ?? object;
  const name = typeof fn.name === 'string' && fn.name ? fn.name : UNREADABLE_CALL_NAME;
  const args = fn.arguments ?? fn.parameters ?? object.parameters ?? {};
  const call: ToolCallPart = { type: 'tool_call', id: newId(), name, arguments: {} };
  if (typeof args !== 'string') return { ...call, arguments: args };
  try {
    return { ...call, arguments: args.trim() ? JSON.parse(args) : {} };
  } catch {
    return { ...call, rawArguments: args };
  }
}

/**
 * A call standing for a payload that is not valid JSON: the name is recovered when visible, the
 * text kept as `rawArguments` so the model is told its call was malformed.
 */
export function unreadableCall(payload: string, newId: () => string): ToolCallPart {
  const name = /"name"\s*:\s*"([^"]+)"/.exec(payload)?.[1] ?? UNREADABLE_CALL_NAME;
  return { type: 'tool_call', id: newId(), name, arguments: {}, rawArguments: payload };
}

export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** JSON.parse that answers undefined instead of throwing. */
export function tryParseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}
