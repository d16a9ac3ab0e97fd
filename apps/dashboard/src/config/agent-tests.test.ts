import type { AgentConfigDocument } from '@agentry/contract';
import { describe, expect, it } from 'vitest';
import {
  blankExpectation,
  EXPECTATION_TYPES,
  flowSteps,
  freeTestName,
  testFieldPointer,
  testToolNames,
  toDraft,
} from './agent-tests.ts';

const config = {
  basic_settings: { name: 'Refund desk' },
  tools: [{ name: 'refund_order', description: 'Refund', parameters: { type: 'object', properties: {} } }],
  skills: [{ name: 'billing' }],
  flows: [
    {
      name: 'leave',
      steps: [
        { id: 'ask_start', type: 'ask' },
        { id: 'done', type: 'end' },
      ],
    },
  ],
} as unknown as AgentConfigDocument;

describe('the test editor’s helpers', () => {
  it('a new expectation of every kind is filled with what the agent has', () => {
    const blanks = EXPECTATION_TYPES.map((type) => blankExpectation(type, config));
    expect(blanks.map((b) => b.type)).toEqual(EXPECTATION_TYPES);
    expect(blankExpectation('tool_called', config)).toEqual({ type: 'tool_called', tool: 'refund_order' });
    expect(blankExpectation('flow_step', config)).toEqual({ type: 'flow_step', flow: 'leave', step: 'ask_start' });
    expect(blankExpectation('handoff_requested', config)).toEqual({ type: 'handoff_requested' });
  });

  it('names the tools and flow steps a case can use', () => {
    expect(testToolNames(config)).toEqual(['refund_order', 'skill__billing']);
    expect(flowSteps(config)).toEqual([{ flow: 'leave', steps: ['ask_start', 'done'] }]);
  });

  it('puts an API issue on the field it is about', () => {
    expect(testFieldPointer('/turns/0/expect/1/arguments/properties/order_id/const')).toBe(
      '/turns/0/expect/1/arguments',
    );
    expect(testFieldPointer('/turns/2/expect/0/pattern')).toBe('/turns/2/expect/0/pattern');
    expect(testFieldPointer('/turns/1/user')).toBe('/turns/1/user');
    expect(testFieldPointer('/fixtures/0/when/properties/x')).toBe('/fixtures/0/when');
    expect(testFieldPointer('/name')).toBe('/name');
  });

  it('finds a free name and reads a stored definition with its lists', () => {
    expect(freeTestName(['A', 'A (2)'], 'A')).toBe('A (3)');
    expect(freeTestName(['B'], 'A')).toBe('A');
    expect(toDraft({ name: 'x', turns: [{ user: 'hi' }] })).toEqual({
      name: 'x',
      turns: [{ user: 'hi', expect: [] }],
      fixtures: [],
    });
  });
});
