import { type Message, textOf } from '@agentry/llm';
import { describe, expect, it } from 'vitest';
import { compactionCut, withSummary } from './compaction.ts';
import { runAgent } from './run-agent.ts';
import { createInMemoryTools, createScriptedModel, eventLog } from './testing/index.ts';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });

describe('compaction', () => {
  it('replaces the older history with a model-written summary near the window, and the task still completes', async () => {
    const history: Message[] = [
      user('My order number is 7781.'),
      assistant('Noted.'),
      user('I live in Lyon.'),
      assistant('Noted as well.'),
      user('Where is my order?'),
    ];
    const tools = createInMemoryTools({ track: { run: ({ order }) => `Order ${order} is in Lyon depot` } });
    const model = createScriptedModel([
      // Step 0: the prompt is reported large, so compaction runs before step 1.
      { toolCalls: [{ id: 't1', name: 'track', arguments: { order: '7781' } }], usage: { inputTokens: 900 } },
      // The summarisation call (generate).
      {
        text: 'User: order 7781, lives in Lyon; asked where the order is.',
        usage: { inputTokens: 300, outputTokens: 20 },
      },
      // Step 1 continues from the summary.
      { text: 'Your order 7781 is at the Lyon depot.', usage: { inputTokens: 120 } },
    ]);
    const log = eventLog();
    const result = await runAgent({
      model,
      tools,
      system: 'Support agent',
      history,
      maxSteps: 5,
      compaction: { contextWindow: 1000, thresholdRatio: 0.8, keepRecentMessages: 2 },
      onEvent: log.onEvent,
    });

    expect(result.status).toBe('completed');
    expect(result.finalText).toBe('Your order 7781 is at the Lyon depot.');
    const summaryRequest = model.requests[1];
    expect(summaryRequest?.tools).toBeUndefined();
    expect(textOf(summaryRequest?.messages[0] ?? { content: [] })).toContain('My order number is 7781.');
    const after = model.requests[2]?.messages ?? [];
    expect(after.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(textOf(after[0] ?? { content: [] })).toContain('order 7781, lives in Lyon');
    expect(JSON.stringify(after)).not.toContain('I live in Lyon.');
    expect(after[1]?.content[0]).toMatchObject({ type: 'tool_call', id: 't1' });
    // The compaction call's usage counts for the run; the transcript keeps every message.
    expect(result.usage.inputTokens).toBe(900 + 300 + 120);
    expect(result.messages).toHaveLength(3);
    expect(log.of('compaction')[0]).toMatchObject({
      step: 1,
      compactedMessages: 5,
      keptMessages: 2,
      estimatedTokens: expect.any(Number),
    });
    expect(log.types().indexOf('compaction')).toBeLessThan(log.types().lastIndexOf('step-started'));
  });

  it('uses a char/4 estimate when there is no usage yet (a long history before the first step)', async () => {
    const long = 'x'.repeat(4000);
    const history = [user(long), assistant('ok'), user(long), assistant('ok'), user('Now answer.')];
    const model = createScriptedModel([{ text: 'summary' }, { text: 'answer' }]);
    const log = eventLog();
    const result = await runAgent({
      model,
      tools: createInMemoryTools({}),
      system: '',
      history,
      maxSteps: 2,
      compaction: { contextWindow: 2000, keepRecentMessages: 1 },
      onEvent: log.onEvent,
    });
    expect(result.status).toBe('completed');
    expect(log.of('compaction')).toHaveLength(1);
    expect(model.requests[1]?.messages).toHaveLength(1);
    expect(textOf(model.requests[1]?.messages[0] ?? { content: [] })).toMatch(/summary[\s\S]*Now answer\./);
  });

  it('a failed summary is reported and the run goes on uncompacted', async () => {
    const long = 'y'.repeat(8000);
    const history = [user(long), assistant('ok'), user('Go')];
    const model = createScriptedModel([{ error: new Error('summariser down') }, { text: 'fine' }]);
    const log = eventLog();
    const result = await runAgent({
      model,
      tools: createInMemoryTools({}),
      system: '',
      history,
      maxSteps: 2,
      compaction: { contextWindow: 1000, keepRecentMessages: 1 },
      onEvent: log.onEvent,
    });
    expect(result.status).toBe('completed');
    expect(log.of('notice')[0]).toMatchObject({ kind: 'compaction-failed' });
    expect(model.requests[1]?.messages).toHaveLength(3);
  });

  it('never cuts between a tool call and its result', () => {
    const messages: Message[] = [
      user('a'),
      { role: 'assistant', content: [{ type: 'tool_call', id: 'c', name: 't', arguments: {} }] },
      { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'c', toolName: 't', output: 'r' }] },
    ];
    expect(compactionCut(messages, 1)).toBe(1);
    expect(compactionCut(messages, 3)).toBe(0);
  });

  it('merges the summary into a leading user message', () => {
    const merged = withSummary('S', [user('next'), assistant('x')]);
    expect(merged).toHaveLength(2);
    expect(textOf(merged[0] ?? { content: [] })).toMatch(/S[\s\S]*next$/);
  });
});
