import { type AppError, isAppError } from '@agentry/errors';
import type {
  LanguageModel,
  Message,
  ModelRequest,
  ModelResponse,
  StreamEvent,
  ToolCallPart,
  ToolDefinition,
} from '@agentry/llm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeLlmServer,
  type FakeReplyTurn,
  type FakeRequest,
  startFakeLlm,
  thinkingSignature,
} from './fake-llm/index.ts';

/** What the suite asks of an adapter factory. */
export interface ConformanceModelOptions {
  /** A fake secret: the suite checks it never appears in an error message. */
  apiKey: string;
  /** Set by the retry cases to keep them short; otherwise the adapter's default. */
  maxRetries?: number;
}

/** Builds the adapter under test, pointed at the fake server. */
export type MakeConformanceModel = (server: FakeLlmServer, options: ConformanceModelOptions) => LanguageModel;

const API_KEY = 'sk-conformance-0123456789abcdef';

const weatherTool: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const timeTool: ToolDefinition = {
  name: 'get_time',
  description: 'Current time in a timezone',
  parameters: { type: 'object', properties: { tz: { type: 'string' } } },
};

function userSays(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] };
}

function ask(text: string, extra: Partial<ModelRequest> = {}): ModelRequest {
  return { messages: [userSays(text)], ...extra };
}

/** Everything a stream produced, checked against the stream contract on the way. */
interface Collected {
  events: StreamEvent[];
  text: string;
  reasoning: string;
  response: ModelResponse;
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<Collected> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  const finishes = events.filter((e) => e.type === 'finish');
  expect(finishes).toHaveLength(1);
  expect(events.at(-1)?.type).toBe('finish');
  const deltas = (type: 'text-delta' | 'reasoning-delta') =>
    events.flatMap((e) => (e.type === type ? [e.delta] : [])).join('');
  const finish = finishes[0] as Extract<StreamEvent, { type: 'finish' }>;
  return { events, text: deltas('text-delta'), reasoning: deltas('reasoning-delta'), response: finish.response };
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isAppError(error), `expected an AppError, got ${String(error)}`).toBe(true);
  return error as AppError;
}

function withoutResponseId(response: ModelResponse): Omit<ModelResponse, 'responseId'> {
  const { responseId: _ignored, ...rest } = response;
  return rest;
}

function lastRequest(server: FakeLlmServer): FakeRequest {
  const request = server.requests.at(-1);
  if (!request) throw new Error('the fake received no request');
  return request;
}

/** Runs the same turn through `generate` and `stream` and checks that both agree. */
async function generateAndStream(
  model: LanguageModel,
  server: FakeLlmServer,
  turn: FakeReplyTurn,
  request: ModelRequest,
): Promise<{ generated: ModelResponse; streamed: Collected }> {
  server.enqueue(turn, turn);
  const generated = await model.generate(request);
  const streamed = await collect(model.stream(request));
  expect(typeof streamed.response.responseId).toBe('string');
  expect(withoutResponseId(streamed.response)).toEqual(withoutResponseId(generated));
  return { generated, streamed };
}

/** Per tool call index: start, then its deltas, then end, and the deltas rebuild the wire arguments. */
function expectToolCallEvents(events: StreamEvent[], calls: ToolCallPart[]): void {
  calls.forEach((call, index) => {
    const mine = events.filter((e) => 'index' in e && e.index === index);
    expect(mine[0]).toEqual({ type: 'tool-call-start', index, id: call.id, name: call.name });
    expect(mine.at(-1)).toEqual({ type: 'tool-call-end', index, toolCall: call });
    const middle = mine.slice(1, -1);
    expect(middle.every((e) => e.type === 'tool-call-delta' && e.id === call.id)).toBe(true);
    const text = middle.map((e) => (e.type === 'tool-call-delta' ? e.delta : '')).join('');
    expect(JSON.parse(text)).toEqual(call.arguments);
  });
  expect(events.filter((e) => e.type === 'tool-call-start')).toHaveLength(calls.length);
}

/** The system prompt as the wire carries it, whatever the protocol. */
function wireSystem(request: FakeRequest): unknown {
  if (request.protocol === 'anthropic') return request.body.system;
  const first = request.body.messages[0];
  return first?.role === 'system' ? first.content : undefined;
}

/**
 * The provider conformance suite: the same cases, run against every LanguageModel adapter through the
 * fake LLM server, so all providers honour one contract (content order, stream events, usage, errors).
 *
 * @example
 * runProviderConformance('openai', (server, o) =>
 *   createOpenAIModel({ apiKey: o.apiKey, baseURL: server.openaiBaseUrl, model: 'gpt-test', maxRetries: o.maxRetries }));
 */
export function runProviderConformance(name: string, makeModel: MakeConformanceModel): void {
  describe(`${name} provider conformance`, () => {
    let server: FakeLlmServer;
    let model: LanguageModel;

    beforeAll(async () => {
      server = await startFakeLlm();
      model = makeModel(server, { apiKey: API_KEY });
    });
    afterAll(async () => {
      await server?.close();
    });
    beforeEach(() => {
      server.reset();
    });

    describe('text', () => {
      it('generates text with finish reason, usage and model id', async () => {
        server.enqueue({ type: 'reply', text: 'Hello there, world!', usage: { input: 12, output: 4 } });
        const response = await model.generate(ask('Hi'));
        expect(response.content).toEqual([{ type: 'text', text: 'Hello there, world!' }]);
        expect(response.finishReason).toBe('stop');
        expect(response.usage).toEqual({ inputTokens: 12, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0 });
        expect(response.modelId).toBe(model.modelId);
        expect(typeof response.responseId).toBe('string');
      });

      it('streams text deltas that join to the text, and a finish equal to generate', async () => {
        const text = 'Streaming is just many small pieces of one answer.';
        const { streamed } = await generateAndStream(model, server, { type: 'reply', text, chunkSize: 3 }, ask('Hi'));
        expect(streamed.text).toBe(text);
        expect(streamed.events.filter((e) => e.type === 'text-delta').length).toBeGreaterThan(10);
        expect(streamed.response.content).toEqual([{ type: 'text', text }]);
      });

      it('maps a length stop', async () => {
        const turn: FakeReplyTurn = { type: 'reply', text: 'Cut sho', finishReason: 'length' };
        const { generated } = await generateAndStream(model, server, turn, ask('Hi', { maxOutputTokens: 3 }));
        expect(generated.finishReason).toBe('length');
      });

      it('reassembles 10,000 one-character deltas exactly', async () => {
        const text = Array.from({ length: 10_000 }, (_, i) => 'abcdefghij klmnopqrstuvwxyz.,é'[i % 30]).join('');
        server.enqueue({ type: 'reply', text, chunkSize: 1 });
        const streamed = await collect(model.stream(ask('Talk a lot')));
        expect(streamed.events.filter((e) => e.type === 'text-delta')).toHaveLength(10_000);
        expect(streamed.text).toBe(text);
        expect(streamed.response.content).toEqual([{ type: 'text', text }]);
      });
    });

    describe('tool calls', () => {
      it('returns a single tool call with parsed arguments, streamed and not', async () => {
        const turn: FakeReplyTurn = {
          type: 'reply',
          toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris', days: [1, 2] } }],
        };
        const request = ask('Weather in Paris?', { tools: [weatherTool] });
        const { generated, streamed } = await generateAndStream(model, server, turn, request);
        const call: ToolCallPart = {
          type: 'tool_call',
          id: 'call_1',
          name: 'get_weather',
          arguments: { city: 'Paris', days: [1, 2] },
        };
        expect(generated.content).toEqual([call]);
        expect(generated.finishReason).toBe('tool_calls');
        expectToolCallEvents(streamed.events, [call]);
      });

      it('returns parallel tool calls in order, after the text', async () => {
        const turn: FakeReplyTurn = {
          type: 'reply',
          text: 'Let me check both.',
          toolCalls: [
            { id: 'call_a', name: 'get_weather', arguments: { city: 'Oslo' } },
            { id: 'call_b', name: 'get_time', arguments: { tz: 'Europe/Oslo' } },
          ],
        };
        const request = ask('Weather and time in Oslo?', { tools: [weatherTool, timeTool], parallelToolCalls: true });
        const { generated, streamed } = await generateAndStream(model, server, turn, request);
        const calls: ToolCallPart[] = [
          { type: 'tool_call', id: 'call_a', name: 'get_weather', arguments: { city: 'Oslo' } },
          { type: 'tool_call', id: 'call_b', name: 'get_time', arguments: { tz: 'Europe/Oslo' } },
        ];
        expect(generated.content).toEqual([{ type: 'text', text: 'Let me check both.' }, ...calls]);
        expectToolCallEvents(streamed.events, calls);
        expect(streamed.text).toBe('Let me check both.');
      });

      it('keeps malformed argument JSON as rawArguments instead of throwing', async () => {
        const raw = '{"city": "Par';
        const turn: FakeReplyTurn = {
          type: 'reply',
          toolCalls: [{ id: 'call_bad', name: 'get_weather', arguments: raw }],
        };
        const { generated, streamed } = await generateAndStream(
          model,
          server,
          turn,
          ask('?', { tools: [weatherTool] }),
        );
        const call = { type: 'tool_call', id: 'call_bad', name: 'get_weather', arguments: {}, rawArguments: raw };
        expect(generated.content).toEqual([call]);
        expect(streamed.events.find((e) => e.type === 'tool-call-end')).toEqual({
          type: 'tool-call-end',
          index: 0,
          toolCall: call,
        });
      });

      it('sends tool definitions, tool choice and the parallel flag in the wire shape', async () => {
        const cases: Array<[ModelRequest['toolChoice'], unknown, unknown]> = [
          ['auto', 'auto', { type: 'auto' }],
          ['none', 'none', { type: 'none' }],
          ['required', 'required', { type: 'any' }],
          [
            { type: 'tool', name: 'get_time' },
            { type: 'function', function: { name: 'get_time' } },
            { type: 'tool', name: 'get_time' },
          ],
        ];
        for (const [toolChoice, openai, anthropic] of cases) {
          server.enqueue({ type: 'reply', text: 'ok' });
          await model.generate(ask('?', { tools: [weatherTool, timeTool], toolChoice }));
          const request = lastRequest(server);
          expect(request.body.tool_choice).toEqual(request.protocol === 'openai' ? openai : anthropic);
        }
        server.enqueue({ type: 'reply', text: 'ok' });
        await model.generate(ask('?', { tools: [weatherTool], toolChoice: 'auto', parallelToolCalls: false }));
        const request = lastRequest(server);
        if (request.protocol === 'openai') {
          expect(request.body.parallel_tool_calls).toBe(false);
          expect(request.body.tools).toEqual([{ type: 'function', function: weatherTool }]);
        } else {
          expect(request.body.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
          expect(request.body.tools).toEqual([
            { name: 'get_weather', description: weatherTool.description, input_schema: weatherTool.parameters },
          ]);
        }
      });

      it('sends no tool options when there are no tools', async () => {
        server.enqueue({ type: 'reply', text: 'ok' });
        await model.generate(ask('?', { toolChoice: 'required', parallelToolCalls: true }));
        const { body } = lastRequest(server);
        expect(body.tools).toBeUndefined();
        expect(body.tool_choice).toBeUndefined();
        expect(body.parallel_tool_calls).toBeUndefined();
      });
    });

    describe('reasoning', () => {
      it('surfaces reasoning before the text, streamed and not', async () => {
        const turn: FakeReplyTurn = { type: 'reply', reasoning: 'The user greets; greet back.', text: 'Hi!' };
        const { generated, streamed } = await generateAndStream(model, server, turn, ask('Hello'));
        const [reasoning, text] = generated.content;
        expect(reasoning).toMatchObject({ type: 'reasoning', text: 'The user greets; greet back.' });
        expect(text).toEqual({ type: 'text', text: 'Hi!' });
        expect(generated.content).toHaveLength(2);
        if (lastRequest(server).protocol === 'anthropic') {
          expect(reasoning).toEqual({
            type: 'reasoning',
            text: 'The user greets; greet back.',
            signature: thinkingSignature('The user greets; greet back.'),
          });
        }
        expect(streamed.reasoning).toBe('The user greets; greet back.');
        expect(streamed.text).toBe('Hi!');
      });
    });

    describe('usage', () => {
      it('reports input, output and cache tokens as disjoint buckets', async () => {
        const turn: FakeReplyTurn = {
          type: 'reply',
          text: 'cached',
          usage: { input: 100, output: 20, cacheRead: 40, cacheWrite: 7 },
        };
        const { generated } = await generateAndStream(model, server, turn, ask('Hi', { cacheHints: true }));
        // The fake (like OpenAI) has no cache-write counter on the OpenAI protocol.
        const cacheWriteTokens = lastRequest(server).protocol === 'anthropic' ? 7 : 0;
        expect(generated.usage).toEqual({ inputTokens: 100, outputTokens: 20, cacheReadTokens: 40, cacheWriteTokens });
      });
    });

    describe('request wire shape', () => {
      it('sends the system prompt, limits and tool results where the protocol wants them', async () => {
        server.enqueue({ type: 'reply', text: 'Sunny, and the clock is broken.' });
        const history: Message[] = [
          userSays('Weather and time in Oslo?'),
          {
            role: 'assistant',
            content: [
              { type: 'tool_call', id: 'call_a', name: 'get_weather', arguments: { city: 'Oslo' } },
              { type: 'tool_call', id: 'call_b', name: 'get_time', arguments: { tz: 'Europe/Oslo' } },
            ],
          },
          {
            role: 'tool',
            content: [{ type: 'tool_result', toolCallId: 'call_a', toolName: 'get_weather', output: 'sunny' }],
          },
          {
            role: 'tool',
            content: [
              {
                type: 'tool_result',
                toolCallId: 'call_b',
                toolName: 'get_time',
                output: { error: 'clock broken' },
                isError: true,
              },
            ],
          },
        ];
        const response = await model.generate({
          system: 'Be brief.',
          messages: history,
          tools: [weatherTool, timeTool],
          maxOutputTokens: 321,
        });
        expect(response.content).toEqual([{ type: 'text', text: 'Sunny, and the clock is broken.' }]);
        const request = lastRequest(server);
        expect(wireSystem(request)).toBe('Be brief.');
        if (request.protocol === 'openai') {
          expect(request.body.max_completion_tokens ?? request.body.max_tokens).toBe(321);
          expect(request.body.messages).toEqual([
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'Weather and time in Oslo?' },
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
                { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"tz":"Europe/Oslo"}' } },
              ],
            },
            { role: 'tool', tool_call_id: 'call_a', content: 'sunny' },
            { role: 'tool', tool_call_id: 'call_b', content: '{"error":"clock broken"}' },
          ]);
        } else {
          expect(request.body.max_tokens).toBe(321);
          expect(request.body.messages).toEqual([
            { role: 'user', content: [{ type: 'text', text: 'Weather and time in Oslo?' }] },
            {
              role: 'assistant',
              content: [
                { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Oslo' } },
                { type: 'tool_use', id: 'call_b', name: 'get_time', input: { tz: 'Europe/Oslo' } },
              ],
            },
            {
              role: 'user',
              content: [
                { type: 'tool_result', tool_use_id: 'call_a', content: 'sunny' },
                { type: 'tool_result', tool_use_id: 'call_b', content: '{"error":"clock broken"}', is_error: true },
              ],
            },
          ]);
        }
      });

      it('marks the system prompt and the last tool for caching when asked (Anthropic only)', async () => {
        server.enqueue({ type: 'reply', text: 'ok' });
        await model.generate({
          ...ask('Hi'),
          system: 'Long stable prompt',
          tools: [weatherTool, timeTool],
          cacheHints: true,
        });
        const request = lastRequest(server);
        if (request.protocol === 'anthropic') {
          expect(request.body.system).toEqual([
            { type: 'text', text: 'Long stable prompt', cache_control: { type: 'ephemeral' } },
          ]);
          expect(request.body.tools[0].cache_control).toBeUndefined();
          expect(request.body.tools[1].cache_control).toEqual({ type: 'ephemeral' });
        } else {
          expect(JSON.stringify(request.body)).not.toContain('cache_control');
          expect(wireSystem(request)).toBe('Long stable prompt');
        }
      });

      it('round-trips a tool call, its result and the reasoning over several turns', async () => {
        const reasoning = 'I need the weather first.';
        server.enqueue(
          {
            type: 'reply',
            reasoning,
            toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: { city: 'Paris' } }],
          },
          { type: 'reply', text: 'It is 21°C in Paris.' },
        );
        const messages: Message[] = [userSays('Weather in Paris?')];
        const first = await model.generate({ messages, tools: [weatherTool] });
        const calls = first.content.filter((p) => p.type === 'tool_call');
        expect(calls).toEqual([{ type: 'tool_call', id: 'call_w', name: 'get_weather', arguments: { city: 'Paris' } }]);
        messages.push({ role: 'assistant', content: first.content });
        messages.push({
          role: 'tool',
          content: [{ type: 'tool_result', toolCallId: 'call_w', toolName: 'get_weather', output: { celsius: 21 } }],
        });
        const second = await collect(model.stream({ messages, tools: [weatherTool] }));
        expect(second.text).toBe('It is 21°C in Paris.');
        expect(second.response.finishReason).toBe('stop');
        const wire = lastRequest(server).body.messages;
        if (lastRequest(server).protocol === 'openai') {
          expect(wire.slice(-2)).toEqual([
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'call_w', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              ],
            },
            { role: 'tool', tool_call_id: 'call_w', content: '{"celsius":21}' },
          ]);
        } else {
          // Thinking goes back unchanged, signature included, or the API rejects the turn.
          expect(wire.slice(-2)).toEqual([
            {
              role: 'assistant',
              content: [
                { type: 'thinking', thinking: reasoning, signature: thinkingSignature(reasoning) },
                { type: 'tool_use', id: 'call_w', name: 'get_weather', input: { city: 'Paris' } },
              ],
            },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_w', content: '{"celsius":21}' }] },
          ]);
        }
      });
    });

    describe('errors and retries', () => {
      it('retries a 429 with Retry-After 0 and succeeds', async () => {
        server.enqueue({ type: 'error', status: 429, retryAfterSeconds: 0 }, { type: 'reply', text: 'finally' });
        const response = await model.generate(ask('Hi'));
        expect(response.content).toEqual([{ type: 'text', text: 'finally' }]);
        expect(server.requests).toHaveLength(2);
      });

      it('retries a 429 before a stream opens and streams the answer', async () => {
        server.enqueue({ type: 'error', status: 429, retryAfterSeconds: 0 }, { type: 'reply', text: 'streamed' });
        const streamed = await collect(model.stream(ask('Hi')));
        expect(streamed.text).toBe('streamed');
        expect(server.requests).toHaveLength(2);
      });

      it('gives up on 500s after the retries as model_unavailable (retryable)', async () => {
        const flaky = makeModel(server, { apiKey: API_KEY, maxRetries: 1 });
        server.enqueue({ type: 'error', status: 500, message: 'upstream exploded' }, { type: 'error', status: 500 });
        const error = await failure(flaky.generate(ask('Hi')));
        expect(error).toMatchObject({ code: 'model_unavailable', category: 'upstream', isRetryable: true });
        expect(server.requests).toHaveLength(2);
      });

      it('reports an exhausted 429 as model_rate_limited with retryAfterMs', async () => {
        const impatient = makeModel(server, { apiKey: API_KEY, maxRetries: 0 });
        server.enqueue({ type: 'error', status: 429, retryAfterSeconds: 7, message: 'Slow down' });
        const error = await failure(impatient.generate(ask('Hi')));
        expect(error).toMatchObject({ code: 'model_rate_limited', isRetryable: true, retryAfterMs: 7000 });
        expect(error.message).toContain('Slow down');
      });

      it('maps 401 to model_auth_failed without retrying or leaking the key', async () => {
        server.enqueue({ type: 'error', status: 401, message: `Incorrect API key provided: ${API_KEY}` });
        const error = await failure(model.generate(ask('Hi')));
        expect(error).toMatchObject({ code: 'model_auth_failed', category: 'upstream', isRetryable: false });
        expect(error.message).toContain('Incorrect API key provided');
        expect(error.message).not.toContain(API_KEY);
        expect(JSON.stringify(error.toJSON())).not.toContain(API_KEY);
        expect(server.requests).toHaveLength(1);
      });

      it('maps 400 to model_bad_request (not retryable)', async () => {
        server.enqueue({ type: 'error', status: 400, message: 'messages: field required' });
        const error = await failure(model.generate(ask('Hi')));
        expect(error).toMatchObject({ code: 'model_bad_request', isRetryable: false });
        expect(error.message).toContain('messages: field required');
      });

      it('maps a failure inside an open stream to model_unavailable', async () => {
        server.enqueue({ type: 'error', status: 529, errorType: 'overloaded_error', midStream: true });
        const error = await failure(collect(model.stream(ask('Hi'))));
        expect(error).toMatchObject({ code: 'model_unavailable', isRetryable: true });
      });

      it('fails with aborted at once when the caller aborts mid-stream', async () => {
        // The rest of the stream would take 2 s: the adapter must not drain it.
        server.enqueue({ type: 'reply', text: 'x'.repeat(200), chunkSize: 1, chunkDelayMs: 10 });
        const controller = new AbortController();
        const events: StreamEvent[] = [];
        let abortedAt = 0;
        const run = async () => {
          for await (const event of model.stream(ask('Hi'), { signal: controller.signal })) {
            events.push(event);
            if (events.length === 3) {
              abortedAt = performance.now();
              controller.abort();
            }
          }
        };
        const error = await failure(run());
        expect(error).toMatchObject({ code: 'aborted', category: 'user', isRetryable: false });
        expect(events.some((e) => e.type === 'finish')).toBe(false);
        expect(performance.now() - abortedAt).toBeLessThan(1_000);
      });

      it('fails with aborted at once when a stream is aborted before its first byte', async () => {
        // `honoursAbort` lets the agent loop drop its own guard: the adapter must stop by itself.
        expect(model.honoursAbort).toBe(true);
        server.enqueue({ type: 'reply', text: 'too late', delayMs: 2_000 });
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 50);
        const started = performance.now();
        const error = await failure(collect(model.stream(ask('Hi'), { signal: controller.signal })));
        expect(error).toMatchObject({ code: 'aborted', isRetryable: false });
        expect(performance.now() - started).toBeLessThan(1_000);
      });

      it('fails with aborted when generate is aborted while waiting', async () => {
        // Two: on a loaded machine the previous test's aborted request can reach the server only after
        // this test's reset and take the first reply, which left this request an empty script (a 500).
        const late = { type: 'reply', text: 'too late', delayMs: 2_000 } as const;
        server.enqueue(late, late);
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 50);
        const started = performance.now();
        const error = await failure(model.generate(ask('Hi'), { signal: controller.signal }));
        expect(error).toMatchObject({ code: 'aborted', isRetryable: false });
        expect(performance.now() - started).toBeLessThan(1_000);
      });
    });
  });
}
