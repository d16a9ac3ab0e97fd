import type { FakeRequest } from './types.ts';

/** The last message of a request, reduced to what a heuristic responder needs. */
export interface LastMessage {
  /** The message's text (for a tool result: the result text). */
  text: string;
  /** True when the last message carries tool results (OpenAI role 'tool', Anthropic `tool_result` blocks). */
  isToolResult: boolean;
}

/** A tool the request offers, whatever the protocol. */
export interface OfferedTool {
  name: string;
  /** The JSON Schema of its arguments (OpenAI `function.parameters`, Anthropic `input_schema`). */
  schema: Record<string, unknown>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Text of a content value: a plain string, or the text parts of a part/block array. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { type: 'text'; text: string } => isRecord(part) && part.type === 'text')
    .map((part) => part.text)
    .join('');
}

function anthropicToolResults(content: unknown): string[] | undefined {
  if (!Array.isArray(content)) return undefined;
  const results = content.filter((block) => isRecord(block) && block.type === 'tool_result') as Array<{
    content?: unknown;
  }>;
  return results.length ? results.map((block) => contentText(block.content)) : undefined;
}

/**
 * The last message of an OpenAI or Anthropic request.
 *
 * @example
 * lastMessage(req); // { text: 'Hi there', isToolResult: false }
 */
export function lastMessage(req: FakeRequest): LastMessage {
  const messages: unknown[] = Array.isArray(req.body?.messages) ? req.body.messages : [];
  const last = messages.at(-1);
  if (!isRecord(last)) return { text: '', isToolResult: false };
  if (req.protocol === 'openai' && last.role === 'tool') return { text: contentText(last.content), isToolResult: true };
  const results = req.protocol === 'anthropic' ? anthropicToolResults(last.content) : undefined;
  if (results) return { text: results.join('; '), isToolResult: true };
  return { text: contentText(last.content), isToolResult: false };
}

/**
 * The tools a request offers, in order, with their argument schemas.
 *
 * @example
 * offeredTools(req)[0]?.name; // 'save_contact'
 */
export function offeredTools(req: FakeRequest): OfferedTool[] {
  const tools: unknown[] = Array.isArray(req.body?.tools) ? req.body.tools : [];
  const out: OfferedTool[] = [];
  for (const tool of tools) {
    if (!isRecord(tool)) continue;
    const spec = req.protocol === 'openai' ? tool.function : tool;
    if (!isRecord(spec) || typeof spec.name !== 'string') continue;
    const schema = req.protocol === 'openai' ? spec.parameters : spec.input_schema;
    out.push({ name: spec.name, schema: isRecord(schema) ? schema : {} });
  }
  return out;
}
