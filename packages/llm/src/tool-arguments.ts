import type { ToolCallPart } from './messages.ts';

/**
 * Parses the argument text of a tool call. Models sometimes emit malformed JSON; that must not
 * throw, because the agent loop reports the problem back to the model so it can retry the call.
 *
 * @example
 * parseToolArguments('{"q":"x"}'); // { arguments: { q: 'x' } }
 * parseToolArguments('{"q":');     // { arguments: {}, rawArguments: '{"q":' }
 */
export function parseToolArguments(raw: string): Pick<ToolCallPart, 'arguments' | 'rawArguments'> {
  // An empty string is how providers encode "no arguments" for parameterless tools.
  if (raw.trim() === '') return { arguments: {} };
  try {
    return { arguments: JSON.parse(raw) as unknown };
  } catch {
    return { arguments: {}, rawArguments: raw };
  }
}
