/**
 * The agent the chaos load talks to and the fake model behind it: every message makes the model
 * call a non-idempotent POST tool and an idempotent GET tool (the same turn), then answer
 * `ack <tag>` after their results, slowly enough (per-call delays) that runs overlap the faults.
 *
 * @example
 * const llm = await startFakeLlm({ responder: chaosModel({ delayMs: 400 }) });
 * const config = chaosAgentConfig(tools.url);
 */
import type { FakeRequest, FakeResponder, FakeTurn } from '@agentry/testkit';

export const POST_TOOL_PATH = '/orders';
export const GET_TOOL_PATH = '/orders/lookup';

/** The agent: `create_order` (POST, not idempotent) and `find_order` (GET, idempotent). */
export function chaosAgentConfig(toolServerUrl: string): Record<string, unknown> {
  const parameters = {
    type: 'object',
    properties: { ref: { type: 'string', description: 'Order reference' } },
    required: ['ref'],
  };
  return {
    basic_settings: {
      name: 'Chaos agent',
      description: 'Places and looks up orders',
      background: 'Durability test',
      language: 'English',
      tone: 'Terse',
    },
    action_books: [
      { condition: 'Always', action: 'Create, then find the order', tools: ['create_order', 'find_order'] },
    ],
    tools: [
      {
        name: 'create_order',
        description: 'Creates an order (not idempotent)',
        parameters,
        idempotent: false,
        endpoint: { url: `${toolServerUrl}${POST_TOOL_PATH}`, method: 'POST', body: { ref: '{ref}' }, timeout: 10 },
      },
      {
        name: 'find_order',
        description: 'Finds an order',
        parameters,
        idempotent: true,
        endpoint: {
          url: `${toolServerUrl}${GET_TOOL_PATH}`,
          method: 'GET',
          query_params: { ref: '{ref}' },
          timeout: 10,
        },
      },
    ],
  };
}

/** The tag of a chaos message (`chaos <tag>`). */
export function tagOf(text: string): string | undefined {
  return /\bchaos (\S+)/.exec(text)?.[1];
}

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
}

/** OpenAI wire: the last user message's tag and whether the request ends with tool results. */
function readRequest(req: FakeRequest): { tag: string; afterTools: boolean } {
  const messages: Array<{ role: string; content: unknown }> = req.body?.messages ?? [];
  const lastUser = messages.findLast((m) => m.role === 'user');
  return { tag: tagOf(text(lastUser?.content)) ?? 'unknown', afterTools: messages.at(-1)?.role === 'tool' };
}

/**
 * The model: both tool calls for a new message, `ack <tag>` (streamed in small chunks) after
 * their results. Deterministic per request, so a retried or resumed step gets the same answer.
 */
export function chaosModel(options: { delayMs: number; chunkDelayMs: number }): FakeResponder {
  return (req): FakeTurn => {
    const { tag, afterTools } = readRequest(req);
    if (afterTools) {
      return {
        type: 'reply',
        text: `ack ${tag} done`,
        chunkSize: 4,
        delayMs: options.delayMs,
        chunkDelayMs: options.chunkDelayMs,
      };
    }
    return {
      type: 'reply',
      delayMs: options.delayMs,
      toolCalls: [
        { id: `call_post_${tag}`, name: 'create_order', arguments: { ref: tag } },
        { id: `call_get_${tag}`, name: 'find_order', arguments: { ref: tag } },
      ],
    };
  };
}
