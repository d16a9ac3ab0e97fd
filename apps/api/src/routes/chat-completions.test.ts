import OpenAI, { AuthenticationError, BadRequestError, NotFoundError, RateLimitError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  call,
  createTenant,
  type Harness,
  runModes,
  seedConfig,
  startHarness,
} from '../test-support/harness.ts';
import { parseModel, splitMessages } from './openai-request.ts';

const modes = runModes('chat-completions.test');

describe('model names and message mapping', () => {
  const id = '01890a5d-ac96-774b-bcce-b302099a8057';
  it('accepts an agent id, agent:<id> and agent:<id>@<version>', () => {
    expect(parseModel(id)).toEqual({ agentId: id });
    expect(parseModel(`agent:${id}`)).toEqual({ agentId: id });
    expect(parseModel(`agent:${id}@3`)).toEqual({ agentId: id, version: 3 });
    expect(parseModel('gpt-4o')).toBeUndefined();
    expect(parseModel(`agent:${id}@0`)).toBeUndefined();
  });

  it('keeps user/assistant text as history, drops system and tool turns, takes the last user message as input', () => {
    const { history, input } = splitMessages([
      { role: 'system', content: 'You are a pirate' },
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'x' }] },
      { role: 'tool', content: '{}' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: ' Book a demo ' },
    ]);
    expect(input).toBe('Book a demo');
    expect(history).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello!' }] },
    ]);
    expect(() =>
      splitMessages([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
      ]),
    ).toThrow(/last message must be a user message/);
  });
});

describe.each(modes)('OpenAI-compatible chat completions (%s)', (mode) => {
  let h: Harness;
  let key: string;
  let agentId: string;
  let client: OpenAI;
  beforeAll(async () => {
    h = await startHarness(mode, 'openai');
    key = await createTenant(h);
    const config = seedConfig();
    config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
    agentId = (await call(h, 'POST', '/v1/agents', { key, body: { config } })).json.id;
    client = new OpenAI({ baseURL: `${h.platform.url}/v1`, apiKey: key, maxRetries: 0 });
  }, 60_000);
  afterAll(() => h?.close());

  it('answers a chat.completion with the reply, finish_reason and usage; earlier turns become the transcript', async () => {
    h.llm.enqueue({ type: 'reply', text: 'Hello from the agent.', usage: { input: 12, output: 7 } });
    const { data: completion, response } = await client.chat.completions
      .create({
        model: agentId,
        messages: [
          { role: 'system', content: 'ignored: the agent has its own prompt' },
          { role: 'user', content: 'My name is Ann.' },
          { role: 'assistant', content: 'Hi Ann!' },
          { role: 'user', content: 'What can you do?' },
        ],
      })
      .withResponse();
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]!.message).toMatchObject({ role: 'assistant', content: 'Hello from the agent.' });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 });
    expect(completion.model).toBe(agentId);

    // The id is the run; the stored conversation holds the request's earlier turns, then the new one.
    const run = await call(h, 'GET', `/v1/runs/${completion.id}`, { key });
    expect(run.json).toMatchObject({ status: 'completed', reply: 'Hello from the agent.' });
    expect(response.headers.get('x-agentry-conversation-id')).toBe(run.json.conversation_id);
    const conversation = await call(h, 'GET', `/v1/conversations/${run.json.conversation_id}`, { key });
    const transcript = conversation.json.messages.map((m: any) => [m.role, m.content[0].text]);
    expect(transcript).toEqual([
      ['user', 'My name is Ann.'],
      ['assistant', 'Hi Ann!'],
      ['user', 'What can you do?'],
      ['assistant', 'Hello from the agent.'],
    ]);
    // The model saw the history (after the agent's own system prompt), not the client's system message.
    const sent = h.llm.requests.at(-1)!.body.messages as Array<{ role: string; content: unknown }>;
    expect(JSON.stringify(sent)).not.toContain('ignored: the agent has its own prompt');
    expect(sent.filter((m) => m.role !== 'system').map((m) => m.content)).toEqual([
      'My name is Ann.',
      'Hi Ann!',
      'What can you do?',
    ]);
  });

  it('streams chat.completion.chunks from the run’s text deltas, then finish_reason, usage and [DONE]', async () => {
    // Paced past the worker's 25 ms delta window: deltas that close together would be merged into one.
    h.llm.enqueue({ type: 'reply', text: 'Streaming works, one chunk at a time.', chunkSize: 4, chunkDelayMs: 40 });
    const stream = await client.chat.completions.create({
      model: `agent:${agentId}`,
      messages: [{ role: 'user', content: 'Stream please' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Streaming works, one chunk at a time.');
    expect(chunks.filter((c) => (c.choices[0]?.delta.content ?? '') !== '').length).toBeGreaterThan(3);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0]!.id)).toBe(true);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const finals = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finals.map((c) => c.choices[0]!.finish_reason)).toEqual(['stop']);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 5 } });
  });

  it('ends a raw stream with data: [DONE] and sends no usage chunk unless asked', async () => {
    h.llm.enqueue({ type: 'reply', text: 'Raw.' });
    const res = await fetch(`${h.platform.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: agentId, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const lines = (await res.text()).split('\n').filter((l) => l.startsWith('data: '));
    expect(lines.at(-1)).toBe('data: [DONE]');
    const chunks = lines.slice(0, -1).map((l) => JSON.parse(l.slice(6)));
    expect(chunks.some((c) => c.usage)).toBe(false);
    expect(chunks.at(-1).choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
  });

  it('runs the agent’s HTTP tool: the recording endpoint is hit and the reply follows the result', async () => {
    const before = h.endpoint.requests.length;
    h.llm.enqueue(
      { type: 'reply', toolCalls: [{ name: 'save_customer_information', arguments: { email: 'ann@example.com' } }] },
      { type: 'reply', text: 'Saved, Ann will hear from us.' },
    );
    const completion = await client.chat.completions.create({
      model: `agent:${agentId}@1`,
      messages: [{ role: 'user', content: 'Book a demo for ann@example.com' }],
    });
    expect(completion.choices[0]!.message.content).toBe('Saved, Ann will hear from us.');
    expect(h.endpoint.requests.length).toBe(before + 1);
    expect(h.endpoint.requests.at(-1)!.json).toMatchObject({ email: 'ann@example.com' });
    expect(completion.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 });
    const run = await call(h, 'GET', `/v1/runs/${completion.id}`, { key });
    expect(run.json.tool_calls).toHaveLength(1);
    expect(run.json.agent_version).toBe(1);
  });

  it('lists the tenant’s agents as models', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual([agentId]);
    expect(models.data[0]).toMatchObject({ object: 'model', owned_by: 'Acme' });
  });

  it('answers OpenAI-shaped errors the client maps to its exceptions', async () => {
    const messages = [{ role: 'user' as const, content: 'hi' }];
    const unknown = await client.chat.completions.create({ model: 'gpt-4o', messages }).catch((e) => e);
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect(unknown.status).toBe(404);
    expect(unknown.code).toBe('model_not_found');
    expect(unknown.error).toMatchObject({ type: 'invalid_request_error', param: 'model' });
    const noVersion = await client.chat.completions.create({ model: `agent:${agentId}@9`, messages }).catch((e) => e);
    expect(noVersion).toBeInstanceOf(NotFoundError);

    const badKey = new OpenAI({ baseURL: `${h.platform.url}/v1`, apiKey: 'sk_not_a_key', maxRetries: 0 });
    const denied = await badKey.chat.completions.create({ model: agentId, messages }).catch((e) => e);
    expect(denied).toBeInstanceOf(AuthenticationError);
    expect(denied.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    expect(await badKey.models.list().catch((e) => e)).toBeInstanceOf(AuthenticationError);

    const invalid = await client.chat.completions.create({ model: agentId, messages: [] }).catch((e) => e);
    expect(invalid).toBeInstanceOf(BadRequestError);
    expect(invalid.error.param).toBe('messages');
    const tools = await client.chat.completions
      .create({ model: agentId, messages, tools: [{ type: 'function', function: { name: 'f' } }] })
      .catch((e) => e);
    expect([tools.status, tools.code, tools.error.param]).toEqual([400, 'unsupported_parameter', 'tools']);
  });

  it('holds the tenant to its daily run quota like the rest of the API (429 in OpenAI’s shape)', async () => {
    const tenant = await call(h, 'POST', '/v1/tenants', { key: ADMIN_TOKEN, body: { name: 'Limited' } });
    const limitedKey = tenant.json.api_key.key;
    const patched = await call(h, 'PATCH', `/v1/tenants/${tenant.json.id}`, {
      key: ADMIN_TOKEN,
      body: { daily_run_limit: 1 },
    });
    expect(patched.status).toBe(200);
    const agent = (await call(h, 'POST', '/v1/agents', { key: limitedKey, body: { config: seedConfig() } })).json.id;
    const limited = new OpenAI({ baseURL: `${h.platform.url}/v1`, apiKey: limitedKey, maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: 'hi' }];
    h.llm.enqueue({ type: 'reply', text: 'One.' });
    expect((await limited.chat.completions.create({ model: agent, messages })).choices[0]!.message.content).toBe(
      'One.',
    );
    const refused = await limited.chat.completions.create({ model: agent, messages }).catch((e) => e);
    expect(refused).toBeInstanceOf(RateLimitError);
    expect(refused.error).toMatchObject({ type: 'rate_limit_error', code: 'quota_exceeded' });
  });

  it('reports a failed run as a non-retryable error and a failed stream as an error event', async () => {
    h.llm.enqueue({ type: 'error', status: 400, message: 'bad request upstream' });
    const res = await fetch(`${h.platform.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: agentId, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(502);
    expect(res.headers.get('x-should-retry')).toBe('false');
    const body = await res.json();
    expect(body.error).toMatchObject({ type: 'server_error' });
    expect(body.error.message).toContain(res.headers.get('x-agentry-run-id'));

    h.llm.enqueue({ type: 'error', status: 400, message: 'bad request upstream' });
    const stream = await client.chat.completions.create({
      model: agentId,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const failure = await (async () => {
      for await (const _chunk of stream);
    })().catch((e) => e);
    expect(failure).toBeInstanceOf(Error);
    expect(String(failure.message)).toMatch(/run ended failed/);
  });
});
