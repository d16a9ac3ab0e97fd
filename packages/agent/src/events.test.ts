import type { Message } from '@agentry/llm';
import { describe, expect, it } from 'vitest';
import { runAgent } from './run-agent.ts';
import { createInMemoryTools, createScriptedModel, eventLog } from './testing/index.ts';

const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Look up x' }] }];
const tools = createInMemoryTools({ lookup: { run: () => 'found' } });

describe('run events', () => {
  it('are emitted in order, numbered, timed and tagged with the trace id', async () => {
    const model = createScriptedModel([
      { reasoning: 'need lookup', text: 'Let me check.', toolCalls: [{ id: 'c1', name: 'lookup', arguments: {} }] },
      { text: ['Found ', 'it.'] },
    ]);
    const log = eventLog();
    await runAgent({ model, tools, system: '', history, maxSteps: 3, traceId: 'trace-42', onEvent: log.onEvent });

    expect(log.types()).toEqual([
      'run-started',
      'step-started',
      'reasoning-delta',
      'text-delta',
      'tool-call',
      'tool-result',
      'step-finished',
      'step-started',
      'text-delta',
      'text-delta',
      'step-finished',
      'run-finished',
    ]);
    expect(log.events.map((e) => e.seq)).toEqual(log.events.map((_, i) => i));
    expect(log.events.every((e) => e.traceId === 'trace-42' && typeof e.at === 'number')).toBe(true);
    expect(log.of('run-started')[0]).toMatchObject({ provider: 'scripted', tools: ['lookup'] });
    expect(log.of('tool-call')[0]?.toolCall).toMatchObject({ id: 'c1', name: 'lookup' });
    expect(log.of('tool-result')[0]).toMatchObject({ toolCallId: 'c1', output: 'found', isError: false, step: 0 });
    expect(log.of('step-finished')[0]?.step).toMatchObject({
      index: 0,
      finishReason: 'tool_calls',
      executedToolCalls: 1,
    });
    expect(log.of('step-finished')[0]?.step.usage).toMatchObject({ inputTokens: 10, outputTokens: 5 });
    expect(log.of('run-finished')[0]).toMatchObject({
      status: 'completed',
      finalText: 'Found it.',
      usage: { inputTokens: 20 },
    });
  });

  it('leave traceId out when none is given', async () => {
    const log = eventLog();
    await runAgent({
      model: createScriptedModel([{ text: 'hi' }]),
      tools,
      system: '',
      history,
      maxSteps: 1,
      onEvent: log.onEvent,
    });
    expect(log.events.some((e) => 'traceId' in e)).toBe(false);
  });

  it('await an async sink so ordering holds', async () => {
    const order: string[] = [];
    const model = createScriptedModel([{ text: ['a', 'b', 'c'] }]);
    await runAgent({
      model,
      tools,
      system: '',
      history,
      maxSteps: 1,
      onEvent: async (event) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (event.type === 'text-delta') order.push(event.delta);
      },
    });
    expect(order).toEqual(['a', 'b', 'c']);
  });
});

describe('text streaming', () => {
  it('stays linear: 40k deltas pass through the loop quickly and the answer is intact', async () => {
    const deltas = Array.from({ length: 40_000 }, (_, i) => `${i % 10}`);
    const model = createScriptedModel([{ text: deltas }]);
    let count = 0;
    const started = performance.now();
    const result = await runAgent({
      model,
      tools,
      system: '',
      history,
      maxSteps: 1,
      onEvent: (event) => {
        if (event.type === 'text-delta') count++;
      },
    });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(count).toBe(40_000);
    expect(result.finalText).toBe(deltas.join(''));
  });
});
