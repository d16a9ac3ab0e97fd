import type { Message } from '@agentry/llm';
import { describe, expect, it } from 'vitest';
import { runAgent } from './run-agent.ts';
import { createInMemoryTools, createScriptedModel, eventLog } from './testing/index.ts';

const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Both please' }] }];

function timedTools(log: string[]) {
  return createInMemoryTools({
    slow: {
      run: async () => {
        log.push('slow:start');
        await new Promise((resolve) => setTimeout(resolve, 60));
        log.push('slow:end');
        return 'slow result';
      },
    },
    fast: {
      run: async () => {
        log.push('fast:start');
        log.push('fast:end');
        return 'fast result';
      },
    },
  });
}

const twoCalls = () =>
  createScriptedModel([
    {
      toolCalls: [
        { id: 'a', name: 'slow' },
        { id: 'b', name: 'fast' },
      ],
    },
    { text: 'Both done.' },
  ]);

describe('tool calls of one step', () => {
  it('run in parallel by default, results in the model’s order (slow first tool still first)', async () => {
    const order: string[] = [];
    const log = eventLog();
    const result = await runAgent({
      model: twoCalls(),
      tools: timedTools(order),
      system: '',
      history,
      maxSteps: 3,
      onEvent: log.onEvent,
    });
    expect(order).toEqual(['slow:start', 'fast:start', 'fast:end', 'slow:end']);
    expect(result.messages[1]?.content.map((p) => (p.type === 'tool_result' ? p.toolCallId : ''))).toEqual(['a', 'b']);
    // Events report results as they finish.
    expect(log.of('tool-result').map((e) => e.toolCallId)).toEqual(['b', 'a']);
    expect(result.steps[0]?.toolCalls.map((c) => c.id)).toEqual(['a', 'b']);
    expect(result.steps[0]?.toolCalls[0]?.durationMs).toBeGreaterThanOrEqual(50);
  });

  it('run one after another with parallelToolCalls: false, which is also sent to the model', async () => {
    const order: string[] = [];
    const model = twoCalls();
    const result = await runAgent({
      model,
      tools: timedTools(order),
      system: '',
      history,
      maxSteps: 3,
      parallelToolCalls: false,
    });
    expect(order).toEqual(['slow:start', 'slow:end', 'fast:start', 'fast:end']);
    expect(model.requests[0]?.parallelToolCalls).toBe(false);
    expect(result.messages[1]?.content.map((p) => (p.type === 'tool_result' ? p.toolCallId : ''))).toEqual(['a', 'b']);
  });
});

describe('a cached tool result', () => {
  it('is marked in its tool-result event and its step record (the result’s meta.cached)', async () => {
    const log = eventLog();
    const inner = timedTools([]);
    const result = await runAgent({
      model: twoCalls(),
      tools: {
        definitions: () => inner.definitions(),
        execute: async (call, options) => {
          const out = await inner.execute(call, options);
          return call.name === 'fast' ? { ...out, meta: { status: 200, cached: true } } : out;
        },
      },
      system: '',
      history,
      maxSteps: 3,
      onEvent: log.onEvent,
    });
    expect(log.of('tool-result').map((e) => [e.toolCallId, e.cached])).toEqual([
      ['b', true],
      ['a', undefined],
    ]);
    expect(result.steps[0]?.toolCalls.map((c) => c.cached)).toEqual([undefined, true]);
  });
});
