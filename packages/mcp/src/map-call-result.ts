import type { ToolExecutionResult } from '@agentry/agent';

/** The parts of an MCP `tools/call` result we read (the SDK's type is a wide union). */
export interface McpCallResult {
  content?: Array<Record<string, unknown>>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** What the model may see of one result; longer text is cut (and the cut marked). */
const maxOutputChars = 16_000;

/**
 * Maps an MCP tool result to our tool result. Text parts become the output text; images and audio
 * become a short placeholder with their MIME type and size (the model gets no pixels through a
 * tool result, and base64 would only burn tokens); embedded resources show their text or URI;
 * `structuredContent` is passed as JSON next to the text. `isError` becomes an error result
 * (`mcp_tool_error`) whose message is the text the server wrote.
 *
 * @example
 * mapCallResult({ content: [{ type: 'text', text: '42' }] }, meta); // { output: '42', isError: false, meta }
 */
export function mapCallResult(result: McpCallResult, meta: Record<string, unknown>): ToolExecutionResult {
  const media: MediaNote[] = [];
  const lines = (result.content ?? []).map((part) => describePart(part, media));
  const text = cutText(lines.join('\n'));
  const fullMeta = { ...meta, ...(media.length > 0 ? { media } : {}) };
  if (result.isError) {
    return {
      output: { error: 'mcp_tool_error', message: text || 'The MCP tool reported an error without a message.' },
      isError: true,
      errorCode: 'mcp_tool_error',
      meta: fullMeta,
    };
  }
  const structured = result.structuredContent;
  if (structured !== undefined) {
    return { output: { ...(text ? { text } : {}), structured_content: structured }, isError: false, meta: fullMeta };
  }
  return { output: text, isError: false, meta: fullMeta };
}

/** A picture, sound or binary the model was told about but not shown. */
export interface MediaNote {
  type: string;
  mime_type: string;
  bytes: number;
}

/**
 * One MCP content part as text for the model (binary parts become a placeholder noted in `media`).
 *
 * @example
 * describePart({ type: 'text', text: 'hi' }, []); // 'hi'
 */
export function describePart(part: Record<string, unknown>, media: MediaNote[]): string {
  switch (part.type) {
    case 'text':
      return String(part.text ?? '');
    case 'image':
    case 'audio':
    case 'blob': {
      const mime = typeof part.mimeType === 'string' ? part.mimeType : 'application/octet-stream';
      const bytes = typeof part.data === 'string' ? Math.floor((part.data.length * 3) / 4) : 0;
      media.push({ type: part.type, mime_type: mime, bytes });
      return `[${part.type}: ${mime}, ${bytes} bytes — not shown to the model]`;
    }
    case 'resource': {
      const resource = (part.resource ?? {}) as Record<string, unknown>;
      if (typeof resource.text === 'string') return resource.text;
      return `[resource: ${String(resource.uri ?? '')}${resource.mimeType ? ` (${String(resource.mimeType)})` : ''}]`;
    }
    case 'resource_link':
      return `[resource link: ${String(part.uri ?? '')}${part.name ? ` "${String(part.name)}"` : ''}]`;
    default:
      return `[unsupported ${String(part.type)} content]`;
  }
}

/**
 * Text cut to what the model may see, the cut marked.
 *
 * @example
 * cutText('short'); // 'short'
 */
export function cutText(text: string): string {
  if (text.length <= maxOutputChars) return text;
  return `${text.slice(0, maxOutputChars)}\n[… cut: ${text.length - maxOutputChars} more characters]`;
}
