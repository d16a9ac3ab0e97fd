/**
 * The baseline the platform is measured against: a bare for-loop over the `openai` SDK making the
 * same model calls as the bench's agent (tool call, then the answer) and the same tool `POST` with
 * `fetch`. The streaming bench's hand-written server runs this same loop behind its SSE handler.
 */
import OpenAI from '../../packages/provider-openai/node_modules/openai/index.mjs';
import type { Timing } from './platform.ts';

const LOOKUP = {
  type: 'function' as const,
  function: {
    name: 'lookup_stock',
    description: 'Stock of an item',
    parameters: {
      type: 'object',
      properties: { item: { type: 'string' }, email: { type: 'string' } },
      required: ['item'],
    },
  },
};

/** One conversation of the loop: its question, and where each text delta goes as it arrives. */
export type BareRun = (question: string, onText?: (text: string) => void) => Promise<Timing>;

/**
 * A loop against the fake model at `llm` (`model` picks its behaviour) calling the tool at `tool`.
 *
 * @example
 * const run = bareLoop({ llm: services.llm, tool: services.tool }, 'fake-instant');
 * const { first, done } = await run('How many of item 42 are in stock?');
 */
export function bareLoop(services: { llm: string; tool: string }, model: string): BareRun {
  const client = new OpenAI({ apiKey: 'bench', baseURL: services.llm, maxRetries: 0 });
  return async (question, onText) => {
    const start = performance.now();
    let first: number | undefined;
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You answer stock questions.' },
      { role: 'user', content: question },
    ];
    for (let step = 0; step < 4; step++) {
      const stream = await client.chat.completions.create({
        model,
        messages,
        tools: [LOOKUP],
        stream: true,
        stream_options: { include_usage: true },
      });
      const text: string[] = [];
      const calls: Array<{ id: string; name: string; args: string[] }> = [];
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta;
        if (delta?.content) {
          first ??= performance.now() - start;
          text.push(delta.content);
          onText?.(delta.content);
        }
        for (const tc of delta?.tool_calls ?? []) {
          calls[tc.index] ??= { id: tc.id ?? '', name: tc.function?.name ?? '', args: [] };
          if (tc.function?.arguments) calls[tc.index]!.args.push(tc.function.arguments);
        }
      }
      if (calls.length === 0) {
        const end = performance.now();
        if (first === undefined) throw new Error('no text');
        return { first, done: end - start, end };
      }
      messages.push({
        role: 'assistant',
        content: text.join('') || null,
        tool_calls: calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.args.join('') },
        })),
      });
      for (const c of calls) {
        const res = await fetch(`${services.tool}/stock`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: c.args.join(''),
        });
        messages.push({ role: 'tool', tool_call_id: c.id, content: await res.text() });
      }
    }
    throw new Error('too many steps');
  };
}
