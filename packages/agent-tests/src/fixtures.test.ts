import type { ToolExecutor } from '@agentry/agent';
import { describe, expect, it } from 'vitest';
import { fixtureFor, NO_FIXTURE, withToolFixtures } from './fixtures.ts';

const call = (name: string, args: unknown) => ({ type: 'tool_call' as const, id: 'c1', name, arguments: args });

describe('tool fixtures', () => {
  const sent: string[] = [];
  const real: ToolExecutor = {
    definitions: () => [{ name: 'refund_order', description: 'Refund', parameters: { type: 'object' } }],
    execute: async (c) => {
      sent.push(c.name);
      return { output: 'sent!', isError: false };
    },
  };
  const fixtures = [
    {
      tool: 'refund_order',
      when: { type: 'object', properties: { amount: { minimum: 1000 } }, required: ['amount'] },
      output: { status: 'needs_review' },
    },
    { tool: 'refund_order', output: { status: 'refunded' } },
    { tool: 'cancel_order', is_error: true, output: { error: 'too_late' } },
  ];
  const tools = withToolFixtures(real, fixtures);

  it('offer the real tools and answer each call from the first matching fixture; nothing is sent', async () => {
    expect(tools.definitions()).toEqual(real.definitions());
    expect((await tools.execute(call('refund_order', { amount: 5000 }))).output).toEqual({ status: 'needs_review' });
    expect((await tools.execute(call('refund_order', { amount: 50 }))).output).toEqual({ status: 'refunded' });
    expect(await tools.execute(call('cancel_order', {}))).toMatchObject({
      isError: true,
      output: { error: 'too_late' },
    });
    expect(await tools.execute(call('unknown_tool', {}))).toMatchObject({ isError: true, errorCode: NO_FIXTURE });
    expect(sent).toEqual([]);
  });

  it('skip malformed stored fixtures instead of trusting them', () => {
    expect(
      fixtureFor([null, 7, { tool: 'a', when: { type: 'nonsense' } }, { tool: 'a', output: 1 }], {
        name: 'a',
        arguments: {},
      }),
    ).toEqual({
      tool: 'a',
      output: 1,
    });
  });
});
