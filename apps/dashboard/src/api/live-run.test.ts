import { describe, expect, it } from 'vitest';
import { applyRunEvent, emptyLiveRun, type LiveRun, liveText } from './live-run.ts';

const apply = (events: Array<{ type: string; [k: string]: unknown }>, from: LiveRun = emptyLiveRun) =>
  events.reduce(applyRunEvent, from);

describe('live run from streamed events', () => {
  const approval = { tool_call_id: 'c1', name: 'refund', arguments: { amount: 5 }, kind: 'approval' as const };

  it('streams text, tool calls, a pause for approval, then the resumed run to its end', () => {
    const waiting = apply([
      { type: 'run-status', status: 'running' },
      { type: 'step-started', step: 0 },
      { type: 'text-delta', step: 0, delta: 'Let me ' },
      { type: 'text-delta', step: 0, delta: 'check.' },
      {
        type: 'tool-call',
        step: 0,
        toolCall: { type: 'tool_call', id: 'c1', name: 'refund', arguments: { amount: 5 } },
      },
      { type: 'waiting', step: 0, pending: [approval] },
      { type: 'run-status', status: 'waiting', pending: [approval] },
    ]);
    expect(waiting).toMatchObject({ status: 'waiting', pending: [approval], final: false });
    expect(liveText(waiting)).toBe('Let me check.');
    expect(waiting.steps[0]?.toolCalls).toEqual([{ id: 'c1', name: 'refund', arguments: { amount: 5 }, done: false }]);

    const done = apply(
      [
        { type: 'run-status', status: 'queued' },
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'refund',
          output: { ok: true },
          isError: false,
          resumed: true,
        },
        { type: 'step-started', step: 0 },
        { type: 'text-delta', step: 0, delta: 'Refunded.' },
        { type: 'step-finished', step: { index: 0, usage: { inputTokens: 9, outputTokens: 3 }, modelLatencyMs: 12 } },
        { type: 'run-status', status: 'completed', final: true },
      ],
      waiting,
    );
    expect(done).toMatchObject({ status: 'completed', final: true, pending: [] });
    expect(done.steps).toHaveLength(2);
    expect(done.steps[0]?.toolCalls[0]).toMatchObject({ output: { ok: true }, isError: false, done: true });
    expect(done.steps[1]).toMatchObject({ text: 'Refunded.', usage: { inputTokens: 9, outputTokens: 3 } });
    expect(liveText(done)).toBe('Let me check.\n\nRefunded.');
  });

  it('marks a cached tool result', () => {
    const run = apply([
      { type: 'step-started', step: 0 },
      { type: 'tool-call', step: 0, toolCall: { type: 'tool_call', id: 'c1', name: 'order', arguments: {} } },
      { type: 'tool-result', toolCallId: 'c1', toolName: 'order', output: { id: 1 }, isError: false, cached: true },
      { type: 'tool-call', step: 0, toolCall: { type: 'tool_call', id: 'c2', name: 'order', arguments: {} } },
      { type: 'tool-result', toolCallId: 'c2', toolName: 'order', output: { id: 1 }, isError: false },
    ]);
    expect(run.steps[0]?.toolCalls.map((c) => c.cached)).toEqual([true, undefined]);
  });

  it('keeps a failure’s error and ignores unknown events', () => {
    const failed = apply([
      { type: 'something-new' },
      { type: 'run-status', status: 'failed', error: { code: 'model_error', message: 'boom' }, final: true },
    ]);
    expect(failed).toMatchObject({ status: 'failed', final: true, error: { code: 'model_error', message: 'boom' } });
  });
});
