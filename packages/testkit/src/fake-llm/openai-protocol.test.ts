import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm } from './server.ts';
import type { FakeLlmServer } from './types.ts';

const TEXT = 'Hello there! This answer is long enough to be streamed in several chunks, émojis 🎉 included.';
const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Hi' }];

let fake: FakeLlmServer;
let client: OpenAI;

beforeAll(async () => {
  fake = await startFakeLlm();
  client = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: 'fake', maxRetries: 0 });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/** Collects a raw stream, keeping every chunk so tests can check how the answer was split. */
async function collect(params: Omit<OpenAI.Chat.ChatCompletionCreateParamsStreaming, 'stream'>) {
  const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
  for await (const chunk of await client.chat.completions.create({ ...params, stream: true })) chunks.push(chunk);
  return chunks;
}

describe('fake LLM, OpenAI chat completions', () => {
  it('answers a text turn as a chat.completion', async () => {
    fake.enqueue({ type: 'reply', text: TEXT });
    const completion = await client.chat.completions.create({ model: 'gpt-test', messages });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-test');
    expect(completion.choices[0]?.message).toMatchObject({ role: 'assistant', content: TEXT });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ protocol: 'openai', path: '/v1/chat/completions', stream: false });
    expect(fake.requests[0]?.body.messages).toEqual(messages);
    expect(fake.requests[0]?.headers.authorization).toBe('Bearer fake');
  });

  it('sets the JSON content type and an x-request-id', async () => {
    fake.enqueue({ type: 'reply', text: 'ok' });
    const { response, request_id } = await client.chat.completions
      .create({ model: 'gpt-test', messages })
      .withResponse();
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(request_id).toMatch(/^req_/);
  });

  it('streams text in chunks that reassemble exactly', async () => {
    fake.enqueue({ type: 'reply', text: TEXT, chunkSize: 5 });
    const chunks = await collect({ model: 'gpt-test', messages });
    const pieces = chunks.map((c) => c.choices[0]?.delta.content ?? '');
    expect(pieces.join('')).toBe(TEXT);
    expect(pieces.filter(Boolean).length).toBeGreaterThan(10);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    expect(fake.requests[0]?.stream).toBe(true);
  });

  it('reassembles through the SDK stream helper', async () => {
    fake.enqueue({ type: 'reply', text: TEXT });
    const final = await client.chat.completions.stream({ model: 'gpt-test', messages }).finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe(TEXT);
  });

  it('sends a usage chunk last when stream_options.include_usage is set, with cached tokens', async () => {
    fake.enqueue({ type: 'reply', text: 'hi', usage: { input: 100, output: 20, cacheRead: 40, cacheWrite: 7 } });
    const chunks = await collect({ model: 'gpt-test', messages, stream_options: { include_usage: true } });
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toMatchObject({
      prompt_tokens: 140,
      completion_tokens: 20,
      total_tokens: 160,
      prompt_tokens_details: { cached_tokens: 40 },
    });
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
  });

  it('sends no usage in a stream unless asked', async () => {
    fake.enqueue({ type: 'reply', text: 'hi' });
    const chunks = await collect({ model: 'gpt-test', messages });
    expect(chunks.every((c) => c.usage === undefined)).toBe(true);
  });

  it('reports cached tokens in a JSON answer', async () => {
    fake.enqueue({ type: 'reply', text: 'hi', usage: { input: 3, output: 2, cacheRead: 9 } });
    const completion = await client.chat.completions.create({ model: 'gpt-test', messages });
    expect(completion.usage).toMatchObject({
      prompt_tokens: 12,
      completion_tokens: 2,
      prompt_tokens_details: { cached_tokens: 9 },
    });
  });

  const calls = [
    { id: 'call_weather', name: 'get_weather', arguments: { city: 'Paris', units: 'metric', days: [1, 2, 3] } },
    { name: 'get_time', arguments: { timezone: 'Europe/Paris' } },
  ];

  it('returns parallel tool calls in a JSON answer', async () => {
    fake.enqueue({ type: 'reply', toolCalls: calls });
    const completion = await client.chat.completions.create({ model: 'gpt-test', messages });
    const message = completion.choices[0]?.message;
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(message?.content).toBeNull();
    const toolCalls = (message?.tool_calls ?? []) as OpenAI.Chat.ChatCompletionMessageFunctionToolCall[];
    expect(toolCalls.map((c) => c.function.name)).toEqual(['get_weather', 'get_time']);
    expect(toolCalls.map((c) => JSON.parse(c.function.arguments))).toEqual(calls.map((c) => c.arguments));
    expect(toolCalls[0]?.id).toBe('call_weather');
    expect(toolCalls[1]?.id).toMatch(/^call_/);
  });

  it('streams parallel tool calls with arguments split over several deltas', async () => {
    fake.enqueue({ type: 'reply', text: 'Let me check.', toolCalls: calls });
    const chunks = await collect({ model: 'gpt-test', messages });
    const argDeltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).filter((d) => d.function?.arguments);
    expect(argDeltas.filter((d) => d.index === 0).length).toBeGreaterThan(1);
    expect(argDeltas.filter((d) => d.index === 1).length).toBeGreaterThan(1);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');

    fake.enqueue({ type: 'reply', text: 'Let me check.', toolCalls: calls });
    const final = await client.chat.completions.stream({ model: 'gpt-test', messages }).finalChatCompletion();
    const message = final.choices[0]?.message;
    expect(message?.content).toBe('Let me check.');
    const toolCalls = (message?.tool_calls ?? []) as OpenAI.Chat.ChatCompletionMessageFunctionToolCall[];
    expect(toolCalls.map((c) => [c.id.startsWith('call_'), c.function.name])).toEqual([
      [true, 'get_weather'],
      [true, 'get_time'],
    ]);
    expect(toolCalls.map((c) => JSON.parse(c.function.arguments))).toEqual(calls.map((c) => c.arguments));
  });

  it('sends string arguments verbatim, even malformed JSON', async () => {
    fake.enqueue({ type: 'reply', toolCalls: [{ name: 'broken', arguments: '{"city": "Par' }] });
    const completion = await client.chat.completions.create({ model: 'gpt-test', messages });
    const call = completion.choices[0]?.message.tool_calls?.[0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    expect(call.function.arguments).toBe('{"city": "Par');
  });

  it('puts reasoning in reasoning_content, JSON and streamed', async () => {
    fake.enqueue({ type: 'reply', reasoning: 'The user greets me; greet back.', text: 'Hello!' });
    const completion = await client.chat.completions.create({ model: 'gpt-test', messages });
    expect(completion.choices[0]?.message).toMatchObject({
      content: 'Hello!',
      reasoning_content: 'The user greets me; greet back.',
    });

    fake.enqueue({ type: 'reply', reasoning: 'The user greets me; greet back.', text: 'Hello!', chunkSize: 4 });
    const chunks = await collect({ model: 'gpt-test', messages });
    const deltas = chunks.map((c) => c.choices[0]?.delta as { reasoning_content?: string; content?: string });
    expect(deltas.map((d) => d?.reasoning_content ?? '').join('')).toBe('The user greets me; greet back.');
    expect(deltas.map((d) => d?.content ?? '').join('')).toBe('Hello!');
    // Reasoning comes before the answer, as reasoning models produce it.
    const firstContent = deltas.findIndex((d) => d?.content);
    const lastReasoning = deltas.findLastIndex((d) => d?.reasoning_content);
    expect(lastReasoning).toBeLessThan(firstContent);
  });

  it('maps finishReason length', async () => {
    fake.enqueue({ type: 'reply', text: 'cut', finishReason: 'length' });
    const completion = await client.chat.completions.create({ model: 'gpt-test', messages });
    expect(completion.choices[0]?.finish_reason).toBe('length');
  });

  it('surfaces an error turn as the SDK APIError with status, type and message', async () => {
    fake.enqueue({ type: 'error', status: 400, message: 'bad tool schema' });
    const error = await client.chat.completions.create({ model: 'gpt-test', messages }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, type: 'invalid_request_error' });
    expect((error as APIError).message).toContain('bad tool schema');
    expect((error as APIError).requestID).toMatch(/^req_/);
  });

  it('uses errorType when given', async () => {
    fake.enqueue({ type: 'error', status: 503, errorType: 'overloaded' });
    const error = await client.chat.completions.create({ model: 'gpt-test', messages }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error).toMatchObject({ status: 503, type: 'overloaded' });
  });

  it('lets the SDK retry a 429 with Retry-After 0, then succeed', async () => {
    const retrying = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: 'fake', maxRetries: 2 });
    fake.enqueue({ type: 'error', status: 429, retryAfterSeconds: 0 }, { type: 'reply', text: 'after retry' });
    const completion = await retrying.chat.completions.create({ model: 'gpt-test', messages });
    expect(completion.choices[0]?.message.content).toBe('after retry');
    expect(fake.requests).toHaveLength(2);
    expect(fake.pending()).toBe(0);
  });

  it('sends the retry-after header', async () => {
    fake.enqueue({ type: 'error', status: 429, retryAfterSeconds: 3 });
    const error = await client.chat.completions.create({ model: 'gpt-test', messages }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as APIError).headers?.get('retry-after')).toBe('3');
  });

  it('can fail mid-stream with an error chunk', async () => {
    fake.enqueue({ type: 'error', status: 500, message: 'stream broke', midStream: true });
    const error = await collect({ model: 'gpt-test', messages }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toContain('stream broke');
  });

  it('answers an error turn to a streaming request with the HTTP status', async () => {
    fake.enqueue({ type: 'error', status: 401, message: 'no key' });
    const error = await collect({ model: 'gpt-test', messages }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
