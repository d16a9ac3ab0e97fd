import type { Message } from '@agentry/llm';
import { describe, expect, it } from 'vitest';
import { runAgent } from './run-agent.ts';
import { createInMemoryTools, createScriptedModel, eventLog } from './testing/index.ts';

const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }];
const tools = () => createInMemoryTools({ lookup: { run: () => 'r' }, other: { run: () => 'o' } });
const callThenAnswer = () =>
  createScriptedModel([{ toolCalls: [{ name: 'lookup', arguments: {} }] }, { text: 'answer' }]);

describe('tool_choice', () => {
  it('defaults to auto', async () => {
    const model = callThenAnswer();
    await runAgent({ model, tools: tools(), system: '', history, maxSteps: 3 });
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'auto']);
  });

  it('required is passed through and reverts to auto after tools ran', async () => {
    const model = callThenAnswer();
    await runAgent({ model, tools: tools(), system: '', history, maxSteps: 3, toolChoice: 'required' });
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['required', 'auto']);
  });

  it('a named tool is passed through; resetToolChoice: false keeps it', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'lookup', arguments: { a: 1 } }] },
      { toolCalls: [{ name: 'lookup', arguments: { a: 2 } }] },
      { text: 'answer' },
    ]);
    const choice = { type: 'tool' as const, name: 'lookup' };
    await runAgent({
      model,
      tools: tools(),
      system: '',
      history,
      maxSteps: 4,
      toolChoice: choice,
      resetToolChoice: false,
    });
    expect(model.requests.map((r) => r.toolChoice)).toEqual([choice, choice, choice]);
  });

  it('none: tools stay defined for the history but none is run, even if the model asks', async () => {
    const own = tools();
    const model = callThenAnswer();
    const log = eventLog();
    const result = await runAgent({
      model,
      tools: own,
      system: '',
      history,
      maxSteps: 3,
      toolChoice: 'none',
      onEvent: log.onEvent,
    });
    expect(model.requests[0]).toMatchObject({ toolChoice: 'none', tools: [{ name: 'lookup' }, { name: 'other' }] });
    expect(own.calls).toHaveLength(0);
    expect(result.messages[1]?.content[0]).toMatchObject({ isError: true, output: { error: 'tools_disabled' } });
    expect(log.of('notice')[0]).toMatchObject({ kind: 'tools-disabled' });
    expect(result.status).toBe('completed');
  });

  it('no tools at all: no tools and no tool_choice in the request', async () => {
    const model = createScriptedModel([{ text: 'hi' }]);
    await runAgent({ model, tools: createInMemoryTools({}), system: '', history, maxSteps: 1, toolChoice: 'required' });
    expect(model.requests[0]?.tools).toBeUndefined();
    expect(model.requests[0]?.toolChoice).toBeUndefined();
  });
});
