/** Plain text written by a user or the model. */
export interface TextPart {
  type: 'text';
  text: string;
  /**
   * The knowledge sources an answer's `[n]` markers cite (set by the runner on a final answer,
   * stored with it). Never sent to a model: adapters send `text` only.
   */
  citations?: SourceCitation[];
}

/** One source an answer cites (the contract's `Citation`, as stored with the message). */
export interface SourceCitation {
  marker: number;
  document_id: string;
  knowledge_base_id: string;
  title: string;
  url: string | null;
  page: number | null;
  heading_path: string[];
  snippet: string;
}

/** Model reasoning ("thinking"). `signature` is provider data that must be sent back unchanged. */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  signature?: string;
  /** Anthropic redacted thinking: opaque data, no text. */
  redactedData?: string;
}

/** A request by the model to run a tool. `arguments` is the parsed JSON the model produced. */
export interface ToolCallPart {
  type: 'tool_call';
  id: string;
  name: string;
  arguments: unknown;
  /** The raw argument text when it was not valid JSON (then `arguments` is `{}`). */
  rawArguments?: string;
}

/** The outcome of one tool call, fed back to the model. */
export interface ToolResultPart {
  type: 'tool_result';
  toolCallId: string;
  toolName: string;
  /** What the model sees: a string or any JSON value (serialised by the adapter). */
  output: unknown;
  isError?: boolean;
}

export type ContentPart = TextPart | ReasoningPart | ToolCallPart | ToolResultPart;

export type Role = 'user' | 'assistant' | 'tool';

/**
 * One message of a conversation. The system prompt is not a message: it travels as
 * `ModelRequest.system` so every provider can place it where it belongs.
 *
 * @example
 * const m: Message = { role: 'user', content: [{ type: 'text', text: 'Hi' }] };
 */
export interface Message {
  role: Role;
  content: ContentPart[];
}

/** Concatenated text of a message's text parts. */
export function textOf(message: Pick<Message, 'content'>): string {
  let out = '';
  for (const part of message.content) if (part.type === 'text') out += part.text;
  return out;
}

/** The tool calls of a message, in order. */
export function toolCallsOf(message: Pick<Message, 'content'>): ToolCallPart[] {
  return message.content.filter((p): p is ToolCallPart => p.type === 'tool_call');
}
