import type { Message } from '@agentry/llm';
import { describe, expect, it } from 'vitest';
import { runAgent } from './run-agent.ts';
import { createInMemoryTools, createScriptedModel } from './testing/index.ts';
import type { ToolExecutor } from './tool-executor.ts';

const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Book for 2' }] }];
const booking = createInMemoryTools({
  book: {
    parameters: { type: 'object', properties: { guests: { type: 'integer' } }, required: ['guests'] },
    run: ({ guests }) => ({ booked: true, guests }),
  },
});

describe('tool errors the model can correct', () => {
  it('invalid arguments are fed back and the model corrects itself', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'book', arguments: { guests: 'two' } }] },
      { toolCalls: [{ name: 'book', arguments: { guests: 2 } }] },
      { text: 'Booked for 2.' },
    ]);
    const result = await runAgent({ model, tools: booking, system: '', history, maxSteps: 5 });
    expect(result.status).toBe('completed');
    const firstResult = model.requests[1]?.messages.at(-1)?.content[0];
    expect(firstResult).toMatchObject({ type: 'tool_result', isError: true, output: { error: 'invalid_arguments' } });
    expect(JSON.stringify(firstResult)).toContain('guests');
    expect(result.messages[3]?.content[0]).toMatchObject({ output: { booked: true, guests: 2 } });
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({ isError: true, errorCode: 'invalid_arguments' });
  });

  it('an unknown tool gets an error listing the available tools', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'bok', arguments: { guests: 2 } }] }, { text: 'sorry' }]);
    const result = await runAgent({ model, tools: booking, system: '', history, maxSteps: 5 });
    expect(result.messages[1]?.content[0]).toMatchObject({
      isError: true,
      output: { error: 'unknown_tool', available: ['book'] },
    });
  });

  it('malformed argument JSON is reported, not executed', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'book', rawArguments: '{"guests": 2' }] },
      { text: 'retry later' },
    ]);
    const result = await runAgent({ model, tools: booking, system: '', history, maxSteps: 5 });
    expect(result.messages[1]?.content[0]).toMatchObject({
      isError: true,
      output: { error: 'invalid_arguments_json' },
    });
  });

  it('an executor that throws becomes an error result with the error code', async () => {
    const throwing: ToolExecutor = {
      definitions: () => booking.definitions(),
      execute: () => Promise.reject(new Error('socket hang up')),
    };
    const model = createScriptedModel([
      { toolCalls: [{ name: 'book', arguments: { guests: 2 } }] },
      { text: 'failed' },
    ]);
    const result = await runAgent({ model, tools: throwing, system: '', history, maxSteps: 5 });
    expect(result.status).toBe('completed');
    expect(result.messages[1]?.content[0]).toMatchObject({ isError: true, output: { error: 'internal_error' } });
  });
});
