import type { Expectation } from '@agentry/contract/schemas';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkExpectations, checkOne } from './expectations.ts';
import type { Judge } from './judge.ts';
import type { TurnObservation } from './observe.ts';

const seen: TurnObservation = {
  reply: 'Sorry about that! Your refund of order 1042 is done.',
  toolCalls: [
    { name: 'lookup_order', arguments: { order_id: '1042' }, output: { ok: true }, isError: false, fixture: true },
    { name: 'refund_order', arguments: { order_id: '1042', amount: 59 }, output: {}, isError: false, fixture: true },
  ],
  citations: [
    {
      marker: 1,
      document_id: '01a2194b-0000-7000-8000-000000000001',
      knowledge_base_id: '01a2194b-0000-7000-8000-000000000002',
      title: 'Refund policy.pdf',
      url: null,
      page: 2,
      heading_path: [],
      snippet: 'Refunds within 14 days',
    },
  ],
  flow: { flow: 'leave_request', step: 'ask_reason', status: 'active' },
  flowSteps: ['leave_request/ask_start', 'leave_request/ask_reason'],
  handoff: false,
};

const amountAtLeast = (n: number) => ({ type: 'object', properties: { amount: { minimum: n } }, required: ['amount'] });

describe('expectations', () => {
  it.each<[Exclude<Expectation, { type: 'rubric' }>, boolean, string]>([
    [{ type: 'tool_called', tool: 'refund_order' }, true, 'refund_order was called'],
    [
      { type: 'tool_called', tool: 'refund_order', arguments: amountAtLeast(50) },
      true,
      'with {"order_id":"1042","amount":59}',
    ],
    [
      { type: 'tool_called', tool: 'refund_order', arguments: amountAtLeast(100) },
      false,
      'which does not match: /amount',
    ],
    [
      { type: 'tool_called', tool: 'cancel_order' },
      false,
      'cancel_order was not called; called: lookup_order, refund_order',
    ],
    [{ type: 'tool_not_called', tool: 'cancel_order' }, true, 'cancel_order was not called'],
    [{ type: 'tool_not_called', tool: 'refund_order' }, false, 'refund_order was called with'],
    [{ type: 'reply_contains', text: 'REFUND' }, true, 'contains "REFUND"'],
    [{ type: 'reply_contains', text: 'REFUND', case_sensitive: true }, false, 'does not contain "REFUND"'],
    [{ type: 'reply_not_contains', text: 'password' }, true, 'does not contain "password"'],
    [{ type: 'reply_not_contains', text: 'sorry' }, false, 'contains "sorry"'],
    [{ type: 'reply_matches', pattern: 'order \\d{4}' }, true, 'matches'],
    [{ type: 'reply_matches', pattern: '^refund' }, false, 'does not match'],
    [{ type: 'flow_step', flow: 'leave_request', step: 'ask_start' }, true, 'reached leave_request/ask_start'],
    [
      { type: 'flow_step', flow: 'leave_request', step: 'confirm' },
      false,
      'went through leave_request/ask_start → leave_request/ask_reason',
    ],
    [{ type: 'handoff_requested' }, false, 'no handoff was requested'],
    [{ type: 'cited', document: 'refund policy' }, true, 'cited "Refund policy.pdf" (page 2)'],
    [{ type: 'cited', document: 'shipping' }, false, 'cited "Refund policy.pdf", not "shipping"'],
  ])('%j → %s', (expectation, passed, detail) => {
    const result = checkOne(seen, expectation);
    expect(result.passed).toBe(passed);
    expect(result.detail).toContain(detail);
  });

  it('says what was seen when nothing happened at all', () => {
    const nothing: TurnObservation = {
      reply: '',
      toolCalls: [],
      citations: [],
      flow: null,
      flowSteps: [],
      handoff: false,
    };
    expect(checkOne(nothing, { type: 'cited', document: 'x' }).detail).toBe('the reply cites no document');
    expect(checkOne(nothing, { type: 'flow_step', flow: 'f', step: 's' }).detail).toBe('no flow ran in this turn');
    expect(checkOne(nothing, { type: 'reply_contains', text: 'x' }).detail).toContain('(no reply)');
  });

  it('asks the judge for rubrics, and fails them with a reason when there is no judge', async () => {
    const asked: string[] = [];
    const judge: Judge = async ({ rubric, reply, transcript }) => {
      asked.push(`${rubric}|${reply}|${transcript}`);
      return {
        passed: true,
        reason: 'It apologises.',
        usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
        provider: 'openai',
        model: 'judge',
      };
    };
    const rubric: Expectation = { type: 'rubric', rubric: 'Apologises' };
    const judged = await checkExpectations(seen, [rubric, { type: 'handoff_requested' }], {
      judge,
      transcript: 'User: hi',
    });
    expect(judged.results.map((r) => [r.passed, r.detail])).toEqual([
      [true, 'It apologises.'],
      [false, 'no handoff was requested; called: lookup_order, refund_order'],
    ]);
    expect(asked).toEqual([`Apologises|${seen.reply}|User: hi`]);
    expect(judged.verdicts).toHaveLength(1);
    const unjudged = await checkExpectations(seen, [rubric], { transcript: '' });
    expect(unjudged.results[0]).toMatchObject({ passed: false, detail: expect.stringContaining('No judge model') });
  });

  it('never throws and always explains, whatever the reply and the text to look for', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string({ minLength: 1, maxLength: 50 }),
        fc.boolean(),
        (reply, text, caseSensitive) => {
          const observed = { ...seen, reply };
          for (const type of ['reply_contains', 'reply_not_contains'] as const) {
            const result = checkOne(observed, { type, text, case_sensitive: caseSensitive });
            expect(result.detail.length).toBeGreaterThan(0);
          }
          const contains = checkOne(observed, { type: 'reply_contains', text, case_sensitive: caseSensitive }).passed;
          const absent = checkOne(observed, { type: 'reply_not_contains', text, case_sensitive: caseSensitive }).passed;
          expect(contains).toBe(!absent);
        },
      ),
    );
  });
});
