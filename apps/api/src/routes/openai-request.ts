import type { ErrorCode } from '@agentry/contract';
import { isId } from '@agentry/db';
import { type AppError, errors } from '@agentry/errors';
import type { Message } from '@agentry/llm';
import { z } from 'zod';

// The OpenAI-compatible request: its schema, the model name, the messages as a transcript.

export const MAX_INPUT_CHARS = 32_000;
export const MAX_MESSAGES = 500;

const ContentPart = z.looseObject({ type: z.string(), text: z.string().optional() });
export const ChatMessage = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.array(ContentPart), z.null()]).optional(),
});
export const ChatRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(ChatMessage).min(1).max(MAX_MESSAGES),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  n: z.number().int().nullish(),
  tools: z.array(z.unknown()).nullish(),
  functions: z.array(z.unknown()).nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
});
export type ChatRequest = z.infer<typeof ChatRequest>;
export type ChatMessage = z.infer<typeof ChatMessage>;

/** An error for OpenAI's shape, with the `param` it is about; its status is the table's (422 goes out as 400). */
export function invalidRequest(code: ErrorCode, message: string, param: string | null = null): AppError {
  return errors.of({ code, message, category: 'user', details: { param } });
}

/** What `model` names: `<agent id>`, `agent:<agent id>` or `agent:<agent id>@<version>`. */
export function parseModel(model: string): { agentId: string; version?: number } | undefined {
  const match = /^(?:agent:)?([0-9a-f-]{36})(?:@([1-9]\d{0,8}))?$/i.exec(model.trim());
  if (!match || !isId(match[1]!)) return undefined;
  return { agentId: match[1]!.toLowerCase(), ...(match[2] ? { version: Number(match[2]) } : {}) };
}

export function modelNotFound(model: string): AppError {
  const message = `The model \`${model}\` does not exist or you do not have access to it. Name an agent: \`<agent id>\`, \`agent:<agent id>\` or \`agent:<agent id>@<version>\` (GET /v1/models lists them).`;
  return invalidRequest('model_not_found', message, 'model');
}

/** The text of a message; only text parts are supported. */
function textOf(message: ChatMessage, index: number): string {
  const { content } = message;
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  const other = content.find((p) => p.type !== 'text');
  if (other) {
    throw invalidRequest(
      'unsupported_content',
      `Only text content is supported; message ${index} has a \`${other.type}\` part`,
      `messages[${index}].content`,
    );
  }
  return content.map((p) => p.text ?? '').join('');
}

/**
 * Splits the request's messages into the stored history and the new input. System and developer
 * messages are dropped (the agent's configured prompt applies); so are tool messages and tool-call
 * turns, which belong to client-side tools this endpoint does not run. The last message must be the
 * user's.
 *
 * @example
 * splitMessages([{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello' }, { role: 'user', content: 'Book' }]);
 * // { history: [user Hi, assistant Hello], input: 'Book' }
 */
export function splitMessages(list: ChatMessage[]): { history: Message[]; input: string } {
  const turns = list
    .map((message, index) => ({ message, index }))
    .filter(({ message }) => message.role === 'user' || message.role === 'assistant');
  const last = turns.at(-1);
  if (last?.message.role !== 'user' || list.at(-1)?.role !== 'user') {
    throw invalidRequest('invalid_messages', 'The last message must be a user message', 'messages');
  }
  const input = textOf(last.message, last.index).trim();
  if (!input) throw invalidRequest('invalid_messages', 'The last user message has no text', 'messages');
  if (input.length > MAX_INPUT_CHARS) {
    throw invalidRequest('invalid_messages', `The last user message is over ${MAX_INPUT_CHARS} characters`, 'messages');
  }
  const history = turns.slice(0, -1).flatMap(({ message, index }): Message[] => {
    const text = textOf(message, index);
    return text ? [{ role: message.role as 'user' | 'assistant', content: [{ type: 'text', text }] }] : [];
  });
  return { history, input };
}

export function refuseClientFeatures(body: ChatRequest): void {
  if ((body.tools?.length ?? 0) > 0 || (body.functions?.length ?? 0) > 0) {
    throw invalidRequest(
      'unsupported_parameter',
      'Client-side tools are not supported: the agent calls its own configured tools',
      body.tools ? 'tools' : 'functions',
    );
  }
  if ((body.n ?? 1) !== 1) throw invalidRequest('unsupported_value', 'Only `n: 1` is supported', 'n');
}

/** The agent's declared context variables, taken from the request's string `metadata`. */
export function contextFrom(metadata: Record<string, string> | null | undefined, declared: Array<{ name: string }>) {
  const context: Record<string, unknown> = {};
  for (const { name } of declared) if (metadata && Object.hasOwn(metadata, name)) context[name] = metadata[name];
  return context;
}
