import type { ToolCallPart } from '@agentry/llm';

const CALL = /^([A-Za-z_][\w.-]*)\s*\(([\s\S]*)\)$/;
const ARG = /\s*([A-Za-z_]\w*)\s*=\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^,]*?)\s*(?:,|$)/y;

/**
 * Reads the function-call form of seed 004's XML profile: `name(a="x", n=2)`. Values are JSON
 * literals or single-quoted strings. Undefined when the text is not in that form.
 *
 * @example
 * parseCallSyntax('add(a=1, b="2")', () => 'c1'); // { ..., name: 'add', arguments: { a: 1, b: '2' } }
 */
export function parseCallSyntax(text: string, newId: () => string): ToolCallPart | undefined {
  const match = CALL.exec(text.trim());
  if (!match) return undefined;
  const [, name, argText] = match;
  const args: Record<string, unknown> = {};
  ARG.lastIndex = 0;
  const source = argText!.trim();
  while (ARG.lastIndex < source.length) {
    const arg = ARG.exec(source);
    if (!arg) return undefined;
    args[arg[1]!] = literal(arg[2]!);
  }
  return { type: 'tool_call', id: newId(), name: name!, arguments: args };
}

function literal(value: string): unknown {
  if (value.startsWith("'")) return value.slice(1, -1).replace(/\\'/g, "'");
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
