import type { Message } from '@agentry/llm';
import { describe, expect, it } from 'vitest';
import { runAgent } from './run-agent.ts';
import { createInMemoryTools, createScriptedModel, eventLog } from './testing/index.ts';

const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'What is the weather in Paris?' }] }];
const weather = createInMemoryTools({
  get_weather: {
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    run: ({ city }) => ({ city, tempC: 21 }),
  },
});

describe('runAgent', () => {
  it('steps until the model stops calling tools and returns the transcript, usage and final text', async () => {
    const model = createScriptedModel([
      {
        toolCalls: [{ id: 'c1', name: 'get_weather', arguments: { city: 'Paris' } }],
        usage: { inputTokens: 100, outputTokens: 10 },
      },
      { text: ['It is ', '21 °C.'], usage: { inputTokens: 130, outputTokens: 8, cacheReadTokens: 50 } },
    ]);
    const result = await runAgent({ model, tools: weather, system: 'Be brief', history, maxSteps: 5 });

    expect(result.status).toBe('completed');
    expect(result.finalText).toBe('It is 21 °C.');
    expect(result.messages.map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant']);
    expect(result.messages[1]?.content[0]).toMatchObject({
      type: 'tool_result',
      toolCallId: 'c1',
      output: { city: 'Paris', tempC: 21 },
    });
    expect(result.toolCallCount).toBe(1);
    expect(result.usage).toEqual({ inputTokens: 230, outputTokens: 18, cacheReadTokens: 50, cacheWriteTokens: 0 });
    expect(result.steps.map((s) => s.usage.inputTokens)).toEqual([100, 130]);
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({ id: 'c1', name: 'get_weather', isError: false });
    expect(result.steps[0]?.modelLatencyMs).toBeGreaterThanOrEqual(0);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    // The second request saw the tool result.
    expect(model.requests[1]?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(model.requests[0]?.system).toBe('Be brief');
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual(['get_weather']);
  });

  it('calls onStep with each step’s messages', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Cold.' },
    ]);
    const seen: string[][] = [];
    await runAgent({
      model,
      tools: weather,
      system: '',
      history,
      maxSteps: 5,
      onStep: async (messages) => {
        seen.push(messages.map((m) => m.role));
      },
    });
    expect(seen).toEqual([['assistant', 'tool'], ['assistant']]);
  });

  it('hands over the model’s message before its tools run, as the first message of the step', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Cold.' },
    ]);
    const order: string[] = [];
    let early: unknown;
    await runAgent({
      model,
      tools: {
        definitions: () => weather.definitions(),
        execute: async (call, options) => {
          order.push('tool');
          return weather.execute(call, options);
        },
      },
      system: '',
      history,
      maxSteps: 5,
      onModelResponse: async (message, step) => {
        order.push(`model:${step}`);
        early = message;
      },
      onStep: async (messages) => {
        order.push('step');
        expect(messages[0]).toBe(early);
      },
    });
    expect(order).toEqual(['model:0', 'tool', 'step', 'model:1', 'step']);
  });

  it('pauses without running any call of a step when one waits for a person', async () => {
    const model = createScriptedModel([
      {
        toolCalls: [
          { id: 'c1', name: 'get_weather', arguments: { city: 'Oslo' } },
          { id: 'c2', name: 'run_in_browser', arguments: { code: '1+1' } },
        ],
      },
    ]);
    let executed = 0;
    const log = eventLog();
    const stored: string[][] = [];
    const result = await runAgent({
      model,
      tools: {
        definitions: () => weather.definitions(),
        execute: async (call, options) => {
          executed++;
          return weather.execute(call, options);
        },
      },
      system: '',
      history,
      maxSteps: 5,
      onEvent: log.onEvent,
      onStep: async (messages) => {
        stored.push(messages.map((m) => m.role));
      },
      pendingInput: async (calls) =>
        calls
          .filter((c) => c.name === 'run_in_browser')
          .map((c) => ({ tool_call_id: c.id, name: c.name, arguments: c.arguments, kind: 'client' as const })),
    });
    expect(result.status).toBe('waiting');
    expect(result.pending).toEqual([
      { tool_call_id: 'c2', name: 'run_in_browser', arguments: { code: '1+1' }, kind: 'client' },
    ]);
    expect(executed).toBe(0);
    expect(stored).toEqual([['assistant']]);
    expect(log.types()).toContain('waiting');
    expect(model.requests).toHaveLength(1);
  });

  it('reports a model failure as status failed with a serialised error, never a throw', async () => {
    const model = createScriptedModel([{ error: new Error('boom') }]);
    const log = eventLog();
    const result = await runAgent({ model, tools: weather, system: '', history, maxSteps: 5, onEvent: log.onEvent });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('internal_error');
    expect(log.types().at(-1)).toBe('run-failed');
  });

  it('sets cacheHints on requests when asked', async () => {
    const model = createScriptedModel([{ text: 'ok' }]);
    await runAgent({ model, tools: weather, system: 's', history, maxSteps: 1, cacheHints: true });
    expect(model.requests[0]?.cacheHints).toBe(true);
  });

  it('does not change the caller’s history array', async () => {
    const own = [...history];
    const model = createScriptedModel([
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] },
      { text: 'Warm.' },
    ]);
    await runAgent({ model, tools: weather, system: '', history: own, maxSteps: 3 });
    expect(own).toHaveLength(1);
  });
});
