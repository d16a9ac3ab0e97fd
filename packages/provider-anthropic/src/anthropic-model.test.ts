import { type FakeLlmServer, startFakeLlm } from '@agentry/testkit';
// Until @agentry/testkit re-exports it, the shared suite is imported by path.
import { runProviderConformance } from '@agentry/testkit/provider-conformance';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicModel } from './anthropic-model.ts';

runProviderConformance('anthropic', (server, options) =>
  createAnthropicModel({
    apiKey: options.apiKey,
    baseURL: server.anthropicBaseUrl,
    model: 'claude-test',
    maxRetries: options.maxRetries,
  }),
);

describe('anthropic adapter specifics', () => {
  let server: FakeLlmServer;
  beforeAll(async () => {
    server = await startFakeLlm();
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => server.reset());

  const ask = { messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Hi' }] }] };

  it('defaults max_tokens to 4096, and adds the thinking budget when thinking is on', async () => {
    const plain = createAnthropicModel({
      apiKey: 'sk-ant-test',
      baseURL: server.anthropicBaseUrl,
      model: 'claude-test',
    });
    const thinking = createAnthropicModel({
      apiKey: 'sk-ant-test',
      baseURL: server.anthropicBaseUrl,
      model: 'claude-test',
      thinking: { budgetTokens: 2000 },
    });
    server.enqueue({ type: 'reply', text: 'ok' }, { type: 'reply', text: 'ok' });
    await plain.generate(ask);
    await thinking.generate(ask);
    expect(server.requests[0]?.body.max_tokens).toBe(4096);
    expect(server.requests[0]?.body.thinking).toBeUndefined();
    expect(server.requests[1]?.body).toMatchObject({
      max_tokens: 6096,
      thinking: { type: 'enabled', budget_tokens: 2000 },
    });
  });

  it('sends redacted thinking back as redacted_thinking and drops unsigned reasoning', async () => {
    const model = createAnthropicModel({
      apiKey: 'sk-ant-test',
      baseURL: server.anthropicBaseUrl,
      model: 'claude-test',
    });
    server.enqueue({ type: 'reply', text: 'ok' });
    await model.generate({
      messages: [
        ...ask.messages,
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: '', redactedData: 'opaque==' },
            { type: 'reasoning', text: 'from another provider' },
            { type: 'text', text: 'Hello' },
          ],
        },
        ...ask.messages,
      ],
    });
    expect(server.requests[0]?.body.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'redacted_thinking', data: 'opaque==' },
        { type: 'text', text: 'Hello' },
      ],
    });
  });

  it('refuses to start without an API key', () => {
    expect(() => createAnthropicModel({ apiKey: '', model: 'claude-test' })).toThrow(
      expect.objectContaining({ code: 'model_not_configured' }),
    );
  });
});
