import type { ModelRequest, StreamEvent, ToolDefinition } from '@agentry/llm';
import { describe, expect, it } from 'vitest';
import { createDemoModel, DEMO_NOTICE } from './demo-model.ts';

const saveContact: ToolDefinition = {
  name: 'save_customer_information',
  description: 'Save a contact',
  parameters: {
    type: 'object',
    properties: { email: { type: 'string' }, name: { type: 'string' }, plan: { type: 'string' } },
    required: ['email', 'name'],
  },
};
const lookup: ToolDefinition = {
  name: 'lookup',
  description: 'x',
  parameters: { type: 'object', properties: { q: {} } },
};

const user = (text: string): ModelRequest['messages'][number] => ({ role: 'user', content: [{ type: 'text', text }] });

describe('the built-in demo model', () => {
  const model = createDemoModel();

  it('calls the tool that takes an email when the message holds one, filling required names from it', async () => {
    const res = await model.generate({
      messages: [user('demo please, kim.lee@example.com')],
      tools: [lookup, saveContact],
    });
    expect(res.content).toEqual([
      {
        type: 'tool_call',
        id: 'demo_1',
        name: 'save_customer_information',
        arguments: { email: 'kim.lee@example.com', name: 'Kim Lee' },
      },
    ]);
    expect(res.finishReason).toBe('tool_calls');
  });

  it('reports the tool result back and says it is the demo model, streaming word by word', async () => {
    const events: StreamEvent[] = [];
    const request: ModelRequest = {
      messages: [
        user('kim@example.com'),
        {
          role: 'assistant',
          content: [{ type: 'tool_call', id: 'demo_1', name: 'save_customer_information', arguments: {} }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool_result',
              toolCallId: 'demo_1',
              toolName: 'save_customer_information',
              output: { saved: true },
            },
          ],
        },
      ],
      tools: [saveContact],
    };
    for await (const event of model.stream(request)) events.push(event);
    const text = events.flatMap((e) => (e.type === 'text-delta' ? [e.delta] : [])).join('');
    expect(text).toBe(`Done: I called save_customer_information, and it answered {"saved":true}\n\n${DEMO_NOTICE}`);
    expect(events.filter((e) => e.type === 'text-delta').length).toBeGreaterThan(10);
    expect(events.at(-1)?.type).toBe('finish');
  });

  it('without an email it says what it can do; with tools off it never calls one', async () => {
    const hello = await model.generate({ messages: [user('hi')], tools: [saveContact] });
    expect(hello.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('Give me an email address') });
    const off = await model.generate({ messages: [user('a@b.co')], tools: [saveContact], toolChoice: 'none' });
    expect(off.content[0]?.type).toBe('text');
  });
});
