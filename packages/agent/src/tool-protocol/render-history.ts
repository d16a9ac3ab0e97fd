import type { ContentPart, Message, ToolCallPart, ToolResultPart } from '@agentry/llm';
import type { ProtocolProfile } from './protocol-profile.ts';

/**
 * Rewrites a history for a model without native tools: assistant tool calls become text in the
 * call template, tool messages become user messages in the result template, and adjacent user
 * messages are merged so roles keep alternating.
 *
 * @example
 * renderHistory(messages, jsonProfile); // no tool_call / tool_result parts left
 */
export function renderHistory(messages: Message[], profile: ProtocolProfile): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    const rendered = renderMessage(message, profile);
    const last = out.at(-1);
    if (last?.role === 'user' && rendered.role === 'user') out[out.length - 1] = mergeUser(last, rendered);
    else out.push(rendered);
  }
  return out;
}

function renderMessage(message: Message, profile: ProtocolProfile): Message {
  if (message.role === 'tool') {
    const results = message.content.filter((p): p is ToolResultPart => p.type === 'tool_result');
    return { role: 'user', content: [{ type: 'text', text: profile.renderResults(results) }] };
  }
  if (!message.content.some((p) => p.type === 'tool_call')) return message;
  return { role: message.role, content: renderCallsInline(message.content, profile) };
}

/** Keeps reasoning parts; text and runs of consecutive calls become text, in order. */
function renderCallsInline(parts: ContentPart[], profile: ProtocolProfile): ContentPart[] {
  const out: ContentPart[] = [];
  let calls: ToolCallPart[] = [];
  const flush = () => {
    if (calls.length > 0) pushText(out, profile.renderCalls(calls));
    calls = [];
  };
  for (const part of parts) {
    if (part.type === 'tool_call') {
      calls.push(part);
      continue;
    }
    flush();
    if (part.type === 'text') pushText(out, part.text);
    else if (part.type === 'reasoning') out.push(part);
  }
  flush();
  return out;
}

function pushText(out: ContentPart[], text: string): void {
  const last = out.at(-1);
  if (last?.type === 'text') out[out.length - 1] = { type: 'text', text: `${last.text}\n\n${text}` };
  else out.push({ type: 'text', text });
}

function mergeUser(a: Message, b: Message): Message {
  return { role: 'user', content: [...a.content, { type: 'text', text: '\n\n' }, ...b.content] };
}
