import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { thinkingSignature } from './anthropic-wire.ts';
import { startFakeLlm } from './server.ts';
import type { FakeLlmServer } from './types.ts';

const TEXT = 'Hello there! This answer is long enough to be streamed in several chunks, émojis 🎉 included.';
const base = { model: 'claude-test', max_tokens: 1024, messages: [{ role: 'user' as const, content: 'Hi' }] };

let fake: FakeLlmServer;
let client: Anthropic;

beforeAll(async () => {
  fake = await startFakeLlm();
  client = new Anthropic({ baseURL: fake.anthropicBaseUrl, apiKey: 'fake', maxRetries: 0 });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/** Collects the raw events of a streamed answer. */
async function collect(): Promise<Anthropic.RawMessageStreamEvent[]> {
  const events: Anthropic.RawMessageStreamEvent[] = [];
  for await (const event of await client.messages.create({ ...base, stream: true })) events.push(event);
  return events;
}

describe('fake LLM, Anthropic messages', () => {
  it('answers a text turn as a message', async () => {
    fake.enqueue({ type: 'reply', text: TEXT });
    const message = await client.messages.create(base);
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [{ type: 'text', text: TEXT }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 10, output_tokens: 5 },
    });
    expect(message.id).toMatch(/^msg_/);
    expect(fake.requests[0]).toMatchObject({ protocol: 'anthropic', path: '/v1/messages', stream: false });
    expect(fake.requests[0]?.body.messages).toEqual(base.messages);
    // Depending on the SDK version the key travels as x-api-key or as a bearer token.
    const headers = fake.requests[0]?.headers ?? {};
    expect(headers['x-api-key'] ?? headers.authorization).toMatch(/^(Bearer )?fake$/);
    expect(headers['anthropic-version']).toBeTruthy();
  });

  it('sets the JSON content type and a request-id', async () => {
    fake.enqueue({ type: 'reply', text: 'ok' });
    const { response, request_id } = await client.messages.create(base).withResponse();
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(request_id).toMatch(/^req_/);
  });

  it('streams text deltas that reassemble exactly, in the real event order', async () => {
    fake.enqueue({ type: 'reply', text: TEXT, chunkSize: 5 });
    const events = await collect();
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('message_start');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    const text = events
      .filter((e) => e.type === 'content_block_delta' && e.delta.type === 'text_delta')
      .map((e) => (e as { delta: { text: string } }).delta.text);
    expect(text.length).toBeGreaterThan(10);
    expect(text.join('')).toBe(TEXT);
  });

  it('reassembles through the SDK MessageStream', async () => {
    fake.enqueue({ type: 'reply', text: TEXT });
    const message = await client.messages.stream(base).finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: TEXT, citations: undefined }].map(stripUndefined));
    expect(message.stop_reason).toBe('end_turn');
  });

  it('reports usage with cache tokens, JSON and streamed', async () => {
    const usage = { input: 100, output: 20, cacheRead: 40, cacheWrite: 7 };
    const expected = {
      input_tokens: 100,
      output_tokens: 20,
      cache_read_input_tokens: 40,
      cache_creation_input_tokens: 7,
    };
    fake.enqueue({ type: 'reply', text: 'hi', usage });
    expect((await client.messages.create(base)).usage).toMatchObject(expected);

    fake.enqueue({ type: 'reply', text: 'hi', usage });
    expect((await client.messages.stream(base).finalMessage()).usage).toMatchObject(expected);
  });

  const calls = [
    { id: 'toolu_weather', name: 'get_weather', arguments: { city: 'Paris', units: 'metric', days: [1, 2, 3] } },
    { name: 'get_time', arguments: { timezone: 'Europe/Paris' } },
  ];

  it('returns parallel tool_use blocks in a JSON answer', async () => {
    fake.enqueue({ type: 'reply', text: 'Checking.', toolCalls: calls });
    const message = await client.messages.create(base);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.map((b) => b.type)).toEqual(['text', 'tool_use', 'tool_use']);
    const uses = message.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    expect(uses.map((u) => u.input)).toEqual(calls.map((c) => c.arguments));
    expect(uses[0]?.id).toBe('toolu_weather');
    expect(uses[1]?.id).toMatch(/^toolu_/);
  });

  it('streams parallel tool calls with input_json_delta fragments', async () => {
    fake.enqueue({ type: 'reply', toolCalls: calls });
    const events = await collect();
    const fragments = (index: number) =>
      events.filter((e) => e.type === 'content_block_delta' && e.index === index && e.delta.type === 'input_json_delta')
        .length;
    expect(fragments(0)).toBeGreaterThan(2);
    expect(fragments(1)).toBeGreaterThan(2);

    fake.enqueue({ type: 'reply', toolCalls: calls });
    const message = await client.messages.stream(base).finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    const uses = message.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    expect(uses.map((u) => [u.name, u.input])).toEqual(calls.map((c) => [c.name, c.arguments]));
  });

  it('streams malformed string arguments verbatim', async () => {
    fake.enqueue({ type: 'reply', toolCalls: [{ name: 'broken', arguments: '{"city": "Par' }] });
    const events = await collect();
    const json = events
      .filter((e) => e.type === 'content_block_delta' && e.delta.type === 'input_json_delta')
      .map((e) => (e as { delta: { partial_json: string } }).delta.partial_json)
      .join('');
    expect(json).toBe('{"city": "Par');
  });

  it('puts reasoning in a signed thinking block before the text', async () => {
    const reasoning = 'The user greets me; I should greet back.';
    const signature = thinkingSignature(reasoning);
    fake.enqueue({ type: 'reply', reasoning, text: 'Hello!' });
    const message = await client.messages.create(base);
    expect(message.content).toEqual([
      { type: 'thinking', thinking: reasoning, signature },
      { type: 'text', text: 'Hello!' },
    ]);

    fake.enqueue({ type: 'reply', reasoning, text: 'Hello!', chunkSize: 6 });
    const streamed = await client.messages.stream(base).finalMessage();
    expect(streamed.content.map(stripUndefined)).toEqual([
      { type: 'thinking', thinking: reasoning, signature },
      { type: 'text', text: 'Hello!' },
    ]);
  });

  it('maps finishReason length to max_tokens', async () => {
    fake.enqueue({ type: 'reply', text: 'cut', finishReason: 'length' });
    expect((await client.messages.create(base)).stop_reason).toBe('max_tokens');
  });

  it('surfaces an error turn as the SDK APIError with status and error type', async () => {
    fake.enqueue({ type: 'error', status: 529, message: 'Overloaded' });
    const error = await client.messages.create(base).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ status: 529, error: { type: 'error', error: { type: 'overloaded_error' } } });
    expect((error as APIError).message).toContain('Overloaded');
    expect((error as APIError).requestID).toMatch(/^req_/);
  });

  it('lets the SDK retry a 429 with Retry-After 0, then succeed', async () => {
    const retrying = new Anthropic({ baseURL: fake.anthropicBaseUrl, apiKey: 'fake', maxRetries: 2 });
    fake.enqueue({ type: 'error', status: 429, retryAfterSeconds: 0 }, { type: 'reply', text: 'after retry' });
    const message = await retrying.messages.create(base);
    expect(message.content).toEqual([{ type: 'text', text: 'after retry' }]);
    expect(fake.requests).toHaveLength(2);
    expect(fake.pending()).toBe(0);
  });

  it('can fail mid-stream with event: error', async () => {
    fake.enqueue({ type: 'error', status: 529, message: 'Overloaded mid-stream', midStream: true });
    const error = await collect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toContain('Overloaded mid-stream');
  });
});

/** The SDK's stream accumulator leaves `undefined` fields that JSON answers never have. */
function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
