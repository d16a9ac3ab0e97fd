import { lastMessage, type OfferedTool, offeredTools } from './conversation.ts';
import type { FakeRequest, FakeTurn } from './types.ts';

const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/;
// Case-sensitive on purpose: the capitalised words after "my name is" are the name, the rest of the sentence is not.
const NAME = /\b[Mm]y name is\s+(\p{L}[\p{L}'-]*(?:\s+\p{Lu}[\p{L}'-]*)*)/u;
const MAX_SUMMARY = 200;

/** Arguments for the tool from its schema's properties: `email` and `name` fields are filled from the text. */
function demoArguments(tool: OfferedTool, text: string, email: string): Record<string, string> {
  const name = NAME.exec(text)?.[1];
  const properties = tool.schema.properties;
  const keys = properties && typeof properties === 'object' ? Object.keys(properties) : ['email', 'name'];
  const args: Record<string, string> = {};
  for (const key of keys) {
    if (/email/i.test(key)) args[key] = email;
    else if (name && /^(full_?)?name$/i.test(key)) args[key] = name;
  }
  return args;
}

function summary(result: string): string {
  const flat = result.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_SUMMARY ? `${flat.slice(0, MAX_SUMMARY)}…` : flat;
}

/**
 * A deterministic stand-in model for demos and the CLI, for both protocols: thanks the user after a
 * tool result, calls the first offered tool when the user gives an email address (filling `email`
 * and, after "my name is X", `name`), and otherwise echoes the user.
 *
 * @example
 * const fake = await startFakeLlm({ responder: demoResponder });
 * // user: "My name is Ada, ada@example.com" + a save_contact tool → save_contact({ email: 'ada@example.com', name: 'Ada' })
 */
export function demoResponder(req: FakeRequest): FakeTurn {
  const last = lastMessage(req);
  if (last.isToolResult) return { type: 'reply', text: `The tool answered: ${summary(last.text)}` };
  const email = EMAIL.exec(last.text)?.[0];
  const tool = offeredTools(req)[0];
  if (tool && email)
    return { type: 'reply', toolCalls: [{ name: tool.name, arguments: demoArguments(tool, last.text, email) }] };
  return { type: 'reply', text: `You said: ${last.text}` };
}
