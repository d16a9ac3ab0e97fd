import type { Message } from '@agentry/llm';
import { describe, expect, it } from 'vitest';
import { runAgent } from './run-agent.ts';
import { createInMemoryTools, createScriptedModel, eventLog } from './testing/index.ts';

const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Go' }] }];
const tools = createInMemoryTools({
  step: { parameters: { type: 'object', properties: { n: { type: 'number' } } }, run: ({ n }) => `did ${n}` },
  hang: { run: () => new Promise(() => {}) },
});
/** A model that calls `step` with a new argument every time, forever. */
const endless = (n = 0) =>
  createScriptedModel([], { fallback: (_req, i) => ({ toolCalls: [{ name: 'step', arguments: { n: n + i } }] }) });

describe('limits', () => {
  it('maxSteps ends the run with status max_steps', async () => {
    const result = await runAgent({ model: endless(), tools, system: '', history, maxSteps: 3 });
    expect(result.status).toBe('max_steps');
    expect(result.reason).toMatch(/3 steps/);
    expect(result.steps).toHaveLength(3);
  });

  it('maxToolCalls stops before the call over the limit and still answers every call', async () => {
    const model = createScriptedModel([
      {
        toolCalls: [
          { name: 'step', arguments: { n: 1 } },
          { name: 'step', arguments: { n: 2 } },
        ],
      },
      {
        toolCalls: [
          { name: 'step', arguments: { n: 3 } },
          { name: 'step', arguments: { n: 4 } },
        ],
      },
    ]);
    const result = await runAgent({ model, tools, system: '', history, maxSteps: 10, maxToolCalls: 3 });
    expect(result.status).toBe('max_tool_calls');
    expect(result.toolCallCount).toBe(3);
    const lastResults = result.messages.at(-1)?.content ?? [];
    expect(lastResults).toHaveLength(2);
    expect(lastResults[1]).toMatchObject({ isError: true, output: { error: 'tool_call_limit' } });
  });

  it('maxTokens: a tool-calling answer over the budget runs no tool and ends the run', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'step', arguments: { n: 1 } }], usage: { inputTokens: 600, outputTokens: 100 } },
      { toolCalls: [{ name: 'step', arguments: { n: 2 } }], usage: { inputTokens: 700, outputTokens: 100 } },
    ]);
    const executed = createInMemoryTools({ step: { run: () => 'ok' } });
    const result = await runAgent({ model, tools: executed, system: '', history, maxSteps: 10, maxTokens: 1000 });
    expect(result.status).toBe('token_budget_exceeded');
    expect(result.usage.inputTokens + result.usage.outputTokens).toBe(1500);
    expect(executed.calls).toHaveLength(1);
    expect(result.messages.at(-1)?.content[0]).toMatchObject({
      isError: true,
      output: { error: 'token_budget_exceeded' },
    });
  });

  it('maxTokens: a final answer that crosses the budget still completes', async () => {
    const model = createScriptedModel([{ text: 'done', usage: { inputTokens: 5_000 } }]);
    const result = await runAgent({ model, tools, system: '', history, maxSteps: 3, maxTokens: 100 });
    expect(result.status).toBe('completed');
  });

  it('timeoutMs ends a run whose model never finishes with status timed_out', async () => {
    const model = createScriptedModel([{ text: 'thinking…', hang: true }]);
    const log = eventLog();
    const started = Date.now();
    const result = await runAgent({
      model,
      tools,
      system: '',
      history,
      maxSteps: 3,
      timeoutMs: 50,
      onEvent: log.onEvent,
    });
    expect(result.status).toBe('timed_out');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(log.of('run-finished')[0]).toMatchObject({ status: 'timed_out' });
  });

  it('timeoutMs also interrupts a tool that runs too long', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'hang' }] }]);
    const result = await runAgent({ model, tools, system: '', history, maxSteps: 3, timeoutMs: 50 });
    expect(result.status).toBe('timed_out');
  });

  it('toolTimeoutMs turns a slow tool into a tool_timeout result the model sees', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'hang' }] },
      { text: 'The tool timed out, sorry.' },
    ]);
    const result = await runAgent({ model, tools, system: '', history, maxSteps: 3, toolTimeoutMs: 30 });
    expect(result.status).toBe('completed');
    expect(result.messages[1]?.content[0]).toMatchObject({ isError: true, output: { error: 'tool_timeout' } });
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({ isError: true, errorCode: 'tool_timeout' });
  });

  it('maxToolErrors ends the run after that many consecutive error results', async () => {
    const failing = createInMemoryTools({ flaky: { run: () => Promise.reject(new Error('down')) } });
    const model = createScriptedModel([], {
      fallback: (_r, i) => ({ toolCalls: [{ name: 'flaky', arguments: { i } }] }),
    });
    const result = await runAgent({ model, tools: failing, system: '', history, maxSteps: 10, maxToolErrors: 3 });
    expect(result.status).toBe('tool_error_limit');
    expect(result.steps).toHaveLength(3);
  });

  it('a success resets the consecutive error count', async () => {
    let calls = 0;
    const alternating = createInMemoryTools({
      flip: {
        run: () => {
          calls++;
          if (calls % 2 === 0) throw new Error('even');
          return 'odd';
        },
      },
    });
    const model = createScriptedModel([], {
      fallback: (_r, i) => (i < 6 ? { toolCalls: [{ name: 'flip', arguments: { i } }] } : { text: 'ok' }),
    });
    const result = await runAgent({ model, tools: alternating, system: '', history, maxSteps: 10, maxToolErrors: 2 });
    expect(result.status).toBe('completed');
  });
});

describe('cancellation', () => {
  it('an abort while the model streams ends the run as cancelled within a short time', async () => {
    const controller = new AbortController();
    const model = createScriptedModel([{ text: Array.from({ length: 1000 }, () => 'word '), chunkDelayMs: 5 }]);
    const log = eventLog();
    let abortedAt = 0;
    const result = await runAgent({
      model,
      tools,
      system: '',
      history,
      maxSteps: 3,
      signal: controller.signal,
      onEvent: (event) => {
        log.onEvent(event);
        if (event.type === 'text-delta' && log.of('text-delta').length === 3) {
          setTimeout(() => {
            abortedAt = Date.now();
            controller.abort();
          }, 0);
        }
      },
    });
    expect(result.status).toBe('cancelled');
    expect(abortedAt).toBeGreaterThan(0);
    expect(Date.now() - abortedAt).toBeLessThan(200);
    expect(log.of('text-delta').length).toBeLessThan(10);
    expect(log.types().at(-1)).toBe('run-cancelled');
    expect(result.messages).toEqual([]);
  });

  it('cancels even when the model ignores the abort signal', async () => {
    const controller = new AbortController();
    const model = createScriptedModel([{ text: 'partial', hang: true, ignoreAbort: true }]);
    setTimeout(() => controller.abort(), 20);
    const started = Date.now();
    const result = await runAgent({ model, tools, system: '', history, maxSteps: 3, signal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('passes the signal to tools and cancels a running tool', async () => {
    const controller = new AbortController();
    let toolSignal: AbortSignal | undefined;
    const watched = createInMemoryTools({
      wait: {
        run: (_a, { signal }) => {
          toolSignal = signal;
          setTimeout(() => controller.abort(), 10);
          return new Promise(() => {});
        },
      },
    });
    const model = createScriptedModel([{ toolCalls: [{ name: 'wait' }] }]);
    const result = await runAgent({
      model,
      tools: watched,
      system: '',
      history,
      maxSteps: 3,
      signal: controller.signal,
    });
    expect(result.status).toBe('cancelled');
    expect(toolSignal?.aborted).toBe(true);
  });

  it('an already aborted signal cancels before any model call', async () => {
    const model = createScriptedModel([{ text: 'never' }]);
    const result = await runAgent({ model, tools, system: '', history, maxSteps: 3, signal: AbortSignal.abort() });
    expect(result.status).toBe('cancelled');
    expect(model.requests).toHaveLength(0);
  });
});
