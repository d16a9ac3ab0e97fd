import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoResponder } from './demo-responder.ts';
import { startFakeLlm } from './server.ts';
import type { FakeLlmServer } from './types.ts';

const schema = {
  type: 'object',
  properties: { name: { type: 'string' }, email: { type: 'string' }, phone: { type: 'string' } },
  required: ['email'],
};
const USER = 'Hello, my name is Ada Lovelace and my email is ada@example.com.';

let fake: FakeLlmServer;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  fake = await startFakeLlm({ responder: demoResponder });
  openai = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: 'fake', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: fake.anthropicBaseUrl, apiKey: 'fake', maxRetries: 0 });
});
afterAll(() => fake.close());

describe('demoResponder over OpenAI', () => {
  const tools: OpenAI.Chat.ChatCompletionTool[] = [
    { type: 'function', function: { name: 'save_contact', description: 'Save a contact', parameters: schema } },
  ];

  it('echoes plain text', async () => {
    const res = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Hi there' }] });
    expect(res.choices[0]?.message.content).toBe('You said: Hi there');
  });

  it('calls the first tool with email and name, then thanks after the tool result', async () => {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: USER }];
    const first = await openai.chat.completions.create({ model: 'm', messages, tools });
    const call = first.choices[0]?.message.tool_calls?.[0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe('save_contact');
    expect(JSON.parse(call.function.arguments)).toEqual({ name: 'Ada Lovelace', email: 'ada@example.com' });

    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '{"id":42}' });
    const second = await openai.chat.completions.create({ model: 'm', messages, tools });
    expect(second.choices[0]?.message.content).toBe('The tool answered: {"id":42}');
  });

  it('works streaming, with content parts', async () => {
    const stream = openai.chat.completions.stream({
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'write to bob@example.org' }] }],
      tools,
    });
    const call = (await stream.finalChatCompletion()).choices[0]?.message.tool_calls?.[0];
    expect(JSON.parse((call as OpenAI.Chat.ChatCompletionMessageFunctionToolCall).function.arguments)).toEqual({
      email: 'bob@example.org',
    });
  });
});

describe('demoResponder over Anthropic', () => {
  const tools: Anthropic.Tool[] = [
    { name: 'save_contact', description: 'Save a contact', input_schema: schema as Anthropic.Tool.InputSchema },
  ];

  it('echoes plain text', async () => {
    const res = await anthropic.messages.create({
      model: 'c',
      max_tokens: 100,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi there' }] }],
    });
    expect(res.content).toEqual([{ type: 'text', text: 'You said: Hi there' }]);
  });

  it('calls the first tool with email and name, then thanks after the tool result', async () => {
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: USER }];
    const first = await anthropic.messages.stream({ model: 'c', max_tokens: 100, messages, tools }).finalMessage();
    const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    expect(use?.name).toBe('save_contact');
    expect(use?.input).toEqual({ name: 'Ada Lovelace', email: 'ada@example.com' });

    messages.push(
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use!.id, content: 'saved as #42' }] },
    );
    const second = await anthropic.messages.create({ model: 'c', max_tokens: 100, messages, tools });
    expect(second.content).toEqual([{ type: 'text', text: 'The tool answered: saved as #42' }]);
  });

  it('answers text when no tool is offered even with an email', async () => {
    const res = await anthropic.messages.create({
      model: 'c',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'mail me at a@b.io' }],
    });
    expect(res.content).toEqual([{ type: 'text', text: 'You said: mail me at a@b.io' }]);
  });
});
