import { type FakeLlmServer, startFakeLlm } from '@agentry/testkit';
import { runProviderConformance } from '@agentry/testkit/provider-conformance';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAIModel } from './openai-model.ts';

runProviderConformance('openai', (server, options) =>
  createOpenAIModel({
    apiKey: options.apiKey,
    baseURL: server.openaiBaseUrl,
    model: 'gpt-test',
    maxRetries: options.maxRetries,
  }),
);

// Any OpenAI-compatible server (Ollama, vLLM, OpenRouter, DashScope) goes through the same adapter.
runProviderConformance('openai_compatible', (server, options) =>
  createOpenAIModel({
    apiKey: options.apiKey,
    baseURL: server.openaiBaseUrl,
    model: 'qwen-test',
    provider: 'openai_compatible',
    maxRetries: options.maxRetries,
  }),
);

describe('openai adapter specifics', () => {
  let server: FakeLlmServer;
  beforeAll(async () => {
    server = await startFakeLlm();
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => server.reset());

  const ask = { messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Hi' }] }] };

  it('asks for usage in streams and uses max_completion_tokens for OpenAI', async () => {
    const model = createOpenAIModel({ apiKey: 'sk-test', baseURL: server.openaiBaseUrl, model: 'gpt-test' });
    server.enqueue({ type: 'reply', text: 'ok' });
    for await (const _ of model.stream({ ...ask, maxOutputTokens: 50, temperature: 0.2 })) void _;
    const body = server.requests[0]?.body;
    expect(server.requests[0]?.headers['user-agent']).toMatch(/^OpenAI\/JS \d/);
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true }, max_completion_tokens: 50 });
    expect(body.temperature).toBe(0.2);
    expect(body.max_tokens).toBeUndefined();
  });

  it('uses max_tokens and needs no key for OpenAI-compatible servers', async () => {
    const model = createOpenAIModel({
      apiKey: '',
      baseURL: server.openaiBaseUrl,
      model: 'qwen3',
      provider: 'openai_compatible',
      defaultHeaders: { 'x-extra': 'yes' },
    });
    expect(model.provider).toBe('openai_compatible');
    server.enqueue({ type: 'reply', text: 'ok' });
    await model.generate({ ...ask, maxOutputTokens: 50 });
    const request = server.requests[0];
    expect(request?.body.max_tokens).toBe(50);
    expect(request?.body.max_completion_tokens).toBeUndefined();
    expect(request?.headers['x-extra']).toBe('yes');
  });

  it('refuses to start for OpenAI without an API key', () => {
    expect(() => createOpenAIModel({ apiKey: '', model: 'gpt-test' })).toThrow(
      expect.objectContaining({ code: 'model_not_configured' }),
    );
  });

  it('replays malformed tool arguments verbatim', async () => {
    const model = createOpenAIModel({ apiKey: 'sk-test', baseURL: server.openaiBaseUrl, model: 'gpt-test' });
    server.enqueue({ type: 'reply', text: 'ok' });
    await model.generate({
      messages: [
        ...ask.messages,
        {
          role: 'assistant',
          content: [{ type: 'tool_call', id: 'c1', name: 'f', arguments: {}, rawArguments: '{"a":' }],
        },
        { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'c1', toolName: 'f', output: 'bad JSON' }] },
      ],
    });
    expect(server.requests[0]?.body.messages[1].tool_calls[0].function.arguments).toBe('{"a":');
  });
});
