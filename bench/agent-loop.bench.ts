// Relative imports: the workspace root depends only on @agentry/testkit.
import { type FakeRequest, startFakeLlm } from '@agentry/testkit';
import { runAgent } from '../packages/agent/src/index.ts';
import { createInMemoryTools, createScriptedModel } from '../packages/agent/src/testing/index.ts';
import type { Message } from '../packages/llm/src/index.ts';
import OpenAI from '../packages/provider-openai/node_modules/openai/index.mjs';
import { createOpenAIModel } from '../packages/provider-openai/src/index.ts';
import { sample, sampleInterleaved } from './stats.ts';

const MODEL = 'fake-model';
const QUESTION = 'What is the stock of item 42?';
const LOOKUP = {
  type: 'function' as const,
  function: {
    name: 'lookup',
    description: 'Stock of an item',
    parameters: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
  },
};

/** Stateless fake: a tool call first, the answer once the last message is a tool result. */
function responder(req: FakeRequest) {
  const last = req.body.messages.at(-1);
  if (last?.role === 'tool') return { type: 'reply' as const, text: 'Item 42 has 7 in stock.', chunkSize: 64 };
  return { type: 'reply' as const, toolCalls: [{ name: 'lookup', arguments: { id: 42 } }] };
}

/** The loop under test: createOpenAIModel + runAgent + an in-memory executor. */
function agentConversation(baseURL: string) {
  const model = createOpenAIModel({ apiKey: 'bench', baseURL, model: MODEL, maxRetries: 0 });
  const tools = createInMemoryTools({
    lookup: { parameters: LOOKUP.function.parameters, run: ({ id }) => ({ id, stock: 7 }) },
  });
  const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: QUESTION }] }];
  return async () => {
    const result = await runAgent({ model, tools, system: 'You are a stock assistant.', history, maxSteps: 4 });
    if (result.status !== 'completed') throw new Error(`agent run ended ${result.status}`);
  };
}

/** The baseline: a bare for-loop over the openai SDK doing the same two streamed calls. */
function bareConversation(baseURL: string) {
  const client = new OpenAI({ apiKey: 'bench', baseURL, maxRetries: 0 });
  return async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You are a stock assistant.' },
      { role: 'user', content: QUESTION },
    ];
    for (let step = 0; step < 4; step++) {
      const stream = await client.chat.completions.create({
        model: MODEL,
        messages,
        tools: [LOOKUP],
        stream: true,
        stream_options: { include_usage: true },
      });
      const text: string[] = [];
      const calls: Array<{ id: string; name: string; args: string[] }> = [];
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta;
        if (delta?.content) text.push(delta.content);
        for (const tc of delta?.tool_calls ?? []) {
          calls[tc.index] ??= { id: tc.id ?? '', name: tc.function?.name ?? '', args: [] };
          if (tc.function?.arguments) calls[tc.index]!.args.push(tc.function.arguments);
        }
      }
      if (calls.length === 0) return;
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
        const args = JSON.parse(c.args.join('')) as { id: number };
        messages.push({ role: 'tool', tool_call_id: c.id, content: JSON.stringify({ id: args.id, stock: 7 }) });
      }
    }
  };
}

/** `width` conversations at once, as one call to time. */
function concurrent(fn: () => Promise<void>, width: number) {
  return () => Promise.all(Array.from({ length: width }, fn));
}

/** 10k text deltas streamed through the loop, against draining the same stream with a bare for-await. */
async function textAccumulation() {
  const deltas = Array.from({ length: 10_000 }, (_, i) => `tok${i} `);
  const tools = createInMemoryTools({});
  const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Write a lot.' }] }];
  const loop = await sample(
    async () => {
      const model = createScriptedModel([{ text: deltas }]);
      let received = 0;
      const onEvent = (event: { type: string }) => {
        if (event.type === 'text-delta') received++;
      };
      await runAgent({ model, tools, system: '', history, maxSteps: 1, onEvent });
      if (received !== deltas.length) throw new Error('lost deltas');
    },
    { iterations: 30, warmup: 3 },
  );
  const bare = await sample(
    async () => {
      const model = createScriptedModel([{ text: deltas }]);
      const parts: string[] = [];
      for await (const event of model.stream({ messages: history }))
        if (event.type === 'text-delta') parts.push(event.delta);
      parts.join('');
    },
    { iterations: 30, warmup: 3 },
  );
  return { loop, bare };
}

/**
 * Agent loop overhead: a two-step conversation (tool call + answer) through runAgent with the
 * OpenAI adapter against the instant fake LLM, compared in the same run with a bare for-loop over
 * the openai SDK, the two sampled alternately; sequential and 50 at once. Plus 10k text deltas
 * through the loop.
 */
export async function run(): Promise<
  Array<{ name: string; unit: string; median: number; p99: number; ratio?: number }>
> {
  const fake = await startFakeLlm({ responder });
  try {
    const agent = agentConversation(fake.openaiBaseUrl);
    const bare = bareConversation(fake.openaiBaseUrl);
    // Interleaved: the loop and the baseline share the machine's moods and the JIT's warm-up.
    const seq = await sampleInterleaved(agent, bare, { iterations: 1000, warmup: 50 });
    const [seqAgent, seqBare] = [seq.a, seq.b];
    fake.requests.length = 0;
    const par = await sampleInterleaved(concurrent(agent, 50), concurrent(bare, 50), { iterations: 40, warmup: 3 });
    const [parAgent, parBare] = [par.a, par.b];
    fake.requests.length = 0;
    const text = await textAccumulation();
    const per = (s: { median: number; p99: number }) => ({ median: s.median, p99: s.p99 });
    return [
      { name: 'two-step conversation, bare openai SDK loop (baseline)', unit: 'ms', ...per(seqBare) },
      {
        name: 'two-step conversation, runAgent + createOpenAIModel',
        unit: 'ms',
        ...per(seqAgent),
        ratio: seqAgent.median / seqBare.median,
      },
      { name: '50 concurrent conversations, bare openai SDK loop (baseline)', unit: 'ms per batch', ...per(parBare) },
      {
        name: '50 concurrent conversations, runAgent + createOpenAIModel',
        unit: 'ms per batch',
        ...per(parAgent),
        ratio: parAgent.median / parBare.median,
      },
      { name: '10k text deltas, bare for-await over the stream (baseline)', unit: 'ms', ...per(text.bare) },
      {
        name: '10k text deltas through runAgent (events emitted)',
        unit: 'ms',
        ...per(text.loop),
        ratio: text.loop.median / text.bare.median,
      },
    ];
  } finally {
    await fake.close();
  }
}

// `node bench/agent-loop.bench.ts` prints the figures on its own.
if (import.meta.main) {
  for (const r of await run()) {
    console.log(
      `${r.name}: median ${r.median.toFixed(3)} ${r.unit}, p99 ${r.p99.toFixed(3)}${r.ratio ? `, ratio ${r.ratio.toFixed(2)}` : ''}`,
    );
  }
}
