import { type Message, textOf } from '@agentry/llm';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../run-agent.ts';
import { createInMemoryTools, createScriptedModel, eventLog } from '../testing/index.ts';
import { withToolProtocol } from './with-tool-protocol.ts';

const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'What is 1 + 2?' }] }];
const add = () =>
  createInMemoryTools({
    add: {
      description: 'Adds two numbers',
      parameters: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
      run: ({ a, b }) => Number(a) + Number(b),
    },
  });
const chars = (text: string) => [...text];

describe('withToolProtocol json', () => {
  it('parses calls from text, hides call syntax from deltas and renders calls and results in the templates', async () => {
    const call =
      '{"tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{\\"a\\": 1, \\"b\\": 2}"}}]}';
    const inner = createScriptedModel([{ text: chars(`I will add.\n${call}`) }, { text: 'It is 3.' }]);
    const log = eventLog();
    const tools = add();
    const result = await runAgent({
      model: withToolProtocol(inner, 'json'),
      tools,
      system: 'Be exact.',
      history,
      maxSteps: 4,
      onEvent: log.onEvent,
    });

    expect(result.status).toBe('completed');
    expect(result.finalText).toBe('It is 3.');
    expect(tools.calls[0]?.arguments).toEqual({ a: 1, b: 2 });
    expect(
      log
        .of('text-delta')
        .map((e) => e.delta)
        .join(''),
    ).toBe('I will add.\nIt is 3.');
    const first = inner.requests[0]!;
    expect(first.tools).toBeUndefined();
    expect(first.toolChoice).toBeUndefined();
    expect(first.system).toMatch(/^### TOOL_USE_PROTOCOL[\s\S]*Available Tool: add[\s\S]*Be exact\.$/);
    const second = inner.requests[1]!;
    expect(second.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const renderedCall = JSON.parse(textOf(second.messages[1]!).split('\n\n')[1]!);
    expect(renderedCall.tool_calls[0].function).toEqual({ name: 'add', arguments: '{"a":1,"b":2}' });
    const renderedResult = JSON.parse(textOf(second.messages[2]!));
    expect(renderedResult.tool_call_result).toMatchObject({ name: 'add', result: 3 });
    // The stored transcript keeps native parts.
    expect(result.messages[0]?.content.map((p) => p.type)).toEqual(['text', 'tool_call']);
  });

  it('parses fenced JSON with several calls and arguments given as objects', async () => {
    const text =
      'Two sums:\n```json\n{"tool_calls": [{"name": "add", "arguments": {"a": 1, "b": 1}}, {"name": "add", "parameters": {"a": 2, "b": 2}}]}\n```';
    const inner = createScriptedModel([{ text: [text.slice(0, 20), text.slice(20)] }, { text: '2 and 4' }]);
    const tools = add();
    await runAgent({ model: withToolProtocol(inner, 'json'), tools, system: '', history, maxSteps: 3 });
    expect(tools.calls.map((c) => c.arguments)).toEqual([
      { a: 1, b: 1 },
      { a: 2, b: 2 },
    ]);
    expect(new Set(tools.calls.map((c) => c.id)).size).toBe(2);
  });

  it('reports malformed JSON back to the model as an error result instead of crashing', async () => {
    const broken = '{"tool_calls": [{"name": "add", "arguments": {"a": 1, "b": }]}';
    const fixed = '{"tool_calls": [{"name": "add", "arguments": {"a": 1, "b": 2}}]}';
    const inner = createScriptedModel([{ text: broken }, { text: fixed }, { text: '3' }]);
    const tools = add();
    const result = await runAgent({ model: withToolProtocol(inner, 'json'), tools, system: '', history, maxSteps: 4 });
    expect(result.status).toBe('completed');
    expect(result.messages[1]?.content[0]).toMatchObject({
      isError: true,
      output: { error: 'invalid_arguments_json' },
    });
    const feedback = JSON.parse(textOf(inner.requests[1]!.messages.at(-1)!));
    expect(feedback.tool_call_result).toMatchObject({ name: 'add', isError: true });
    expect(tools.calls).toHaveLength(1);
  });

  it('says so in the prompt for required / named choices, and adds no protocol for none', async () => {
    const run = async (toolChoice: 'required' | 'none' | { type: 'tool'; name: string }) => {
      const inner = createScriptedModel([{ text: 'ok' }]);
      await runAgent({
        model: withToolProtocol(inner, 'json'),
        tools: add(),
        system: 'S',
        history,
        maxSteps: 1,
        toolChoice,
        parallelToolCalls: false,
      });
      return inner.requests[0]?.system ?? '';
    };
    expect(await run('required')).toContain('You MUST call at least one tool');
    expect(await run({ type: 'tool', name: 'add' })).toContain('You MUST call the tool `add`');
    expect(await run('required')).toContain('at most one tool per reply');
    expect(await run('none')).toBe('S');
  });
});

describe('withToolProtocol xml', () => {
  it('parses <tool_code> blocks, including the call syntax, and renders <tool_result>', async () => {
    const text =
      'Computing.<tool_code>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_code><tool_code>add(a=5, b=5)</tool_code>';
    const inner = createScriptedModel([{ text: chars(text) }, { text: '3 and 10' }]);
    const log = eventLog();
    const tools = add();
    const result = await runAgent({
      model: withToolProtocol(inner, 'xml'),
      tools,
      system: '',
      history,
      maxSteps: 3,
      onEvent: log.onEvent,
    });
    expect(result.status).toBe('completed');
    expect(tools.calls.map((c) => c.arguments)).toEqual([
      { a: 1, b: 2 },
      { a: 5, b: 5 },
    ]);
    expect(
      log
        .of('text-delta')
        .map((e) => e.delta)
        .join(''),
    ).toBe('Computing.3 and 10');
    expect(inner.requests[0]?.system).toContain('<tool_code>');
    const second = inner.requests[1]!;
    expect(textOf(second.messages[1]!)).toContain(
      '<tool_code>\n{"name": "add", "arguments": {"a":1,"b":2}}\n</tool_code>',
    );
    expect(textOf(second.messages[2]!)).toMatch(
      /<tool_result>\n<id>call_\w+<\/id>\n<name>add<\/name>\n<content>\n3\n<\/content>\n<\/tool_result>/,
    );
  });

  it('reports an unreadable block as an error result', async () => {
    const inner = createScriptedModel([
      { text: '<tool_code>{"name": "add", "arguments": {"a": </tool_code>' },
      { text: 'sorry' },
    ]);
    const result = await runAgent({
      model: withToolProtocol(inner, 'xml'),
      tools: add(),
      system: '',
      history,
      maxSteps: 3,
    });
    expect(result.messages[1]?.content[0]).toMatchObject({
      toolName: 'add',
      isError: true,
      output: { error: 'invalid_arguments_json' },
    });
    expect(textOf(inner.requests[1]!.messages.at(-1)!)).toContain('<is_error>true</is_error>');
  });

  it('generate() parses calls too', async () => {
    const inner = createScriptedModel([
      { text: 'x<tool_code>{"name": "add", "arguments": {"a": 1, "b": 2}}</tool_code>' },
    ]);
    const response = await withToolProtocol(inner, 'xml').generate({ messages: history, tools: add().definitions() });
    expect(response.finishReason).toBe('tool_calls');
    expect(response.content.map((p) => p.type)).toEqual(['text', 'tool_call']);
  });

  it('keeps a native call a model sends anyway, without duplicating its events', async () => {
    const inner = createScriptedModel([{ toolCalls: [{ id: 'n1', name: 'add', arguments: { a: 1, b: 1 } }] }]);
    const events = [];
    for await (const event of withToolProtocol(inner, 'xml').stream({ messages: history })) events.push(event.type);
    expect(events.filter((t) => t === 'tool-call-end')).toHaveLength(1);
    expect(events.at(-1)).toBe('finish');
  });
});
