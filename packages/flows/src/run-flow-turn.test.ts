import type { AgentEventBody, ToolExecutor } from '@agentry/agent';
import type { FlowConfig } from '@agentry/config';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileFlows } from './compile-flows.ts';
import { latestFlowState } from './flow-state.ts';
import { withFlowTools } from './flow-tools.ts';
import { MAX_TRANSITIONS, runFlowTurn, startFlowState } from './run-flow-turn.ts';
import { matchTrigger } from './triggers.ts';

const refund: FlowConfig = {
  name: 'refund',
  description: 'Refund an order',
  triggers: { patterns: ['(?i)\\brefund\\b'] },
  slots: {
    order: {
      schema: { type: 'string', pattern: '^NW-[0-9]{4}$' },
      pattern: '(NW-[0-9]+)',
      description: 'The order number',
    },
    amount: { schema: { type: 'number', exclusiveMinimum: 0 }, pattern: '([0-9]+(?:\\.[0-9]+)?)' },
    speed: { schema: { type: 'string', enum: ['standard', 'express'] }, pattern: '(standard|express)' },
  },
  steps: [
    { id: 'ask_order', type: 'ask', slot: 'order', prompt: 'Which order?' },
    { id: 'ask_amount', type: 'ask', slot: 'amount', prompt: 'How much?' },
    {
      id: 'size',
      type: 'branch',
      branches: [{ when: { properties: { amount: { minimum: 100 } }, required: ['amount'] }, goto: 'big' }],
    },
    { id: 'ask_speed', type: 'ask', slot: 'speed', prompt: 'Standard or express?' },
    { id: 'confirm', type: 'confirm', prompt: 'Refund {{amount}} for {{order}}?', no: 'stopped' },
    {
      id: 'pay',
      type: 'tool',
      tool: 'refund_order',
      arguments: { order: '{{order}}', amount: '{{amount}}' },
      save: { ref: '/ref' },
    },
    { id: 'done', type: 'end', message: 'Refunded, reference {{ref}}.' },
    { id: 'big', type: 'handoff', message: 'A colleague handles refunds of {{amount}} or more.' },
    { id: 'stopped', type: 'end', message: 'Nothing was refunded.' },
  ],
};

/** A tool executor that records calls and answers from a function. */
function recordingTools(
  answer: (args: any) => { output: unknown; isError?: boolean } = () => ({ output: { ref: 'R1' } }),
) {
  const calls: Array<{ id: string; name: string; arguments: unknown }> = [];
  const tools: ToolExecutor = {
    definitions: () => [{ name: 'refund_order', description: 'Refund', parameters: { type: 'object' } }],
    async execute(call) {
      calls.push({ id: call.id, name: call.name, arguments: call.arguments });
      const { output, isError = false } = answer(call.arguments);
      return { output, isError, ...(isError ? { errorCode: 'http_error' } : {}) };
    },
  };
  return { tools, calls };
}

function deps(tools: ToolExecutor, events: AgentEventBody[] = []) {
  return {
    tools,
    context: {},
    callId: (stepId: string, visit: number) => `c_${stepId}_${visit}`,
    emit: (e: AgentEventBody) => {
      events.push(e);
    },
    step: 0,
    signal: new AbortController().signal,
  };
}

async function converse(config: FlowConfig, inputs: string[], tools: ToolExecutor) {
  const [flow] = compileFlows([config]);
  let state = startFlowState(flow!);
  const replies: string[][] = [];
  for (const [i, input] of inputs.entries()) {
    const turn = await runFlowTurn(flow!, state, i === 0 ? input : input, deps(tools));
    replies.push(turn.replies);
    state = turn.state;
  }
  return { state, replies };
}

describe('a flow turn', () => {
  it('walks ask → branch → ask (enum buttons) → confirm → tool → end, saving from the result', async () => {
    const { tools, calls } = recordingTools();
    const [flow] = compileFlows([refund]);
    const events: AgentEventBody[] = [];
    let turn = await runFlowTurn(flow!, startFlowState(flow!), 'I want a refund', deps(tools, events));
    expect(turn.replies).toEqual(['Which order?']);
    turn = await runFlowTurn(flow!, turn.state, 'It was NW-1234', deps(tools, events));
    expect(turn.replies).toEqual(['How much?']);
    turn = await runFlowTurn(flow!, turn.state, '25.5 euros', deps(tools, events));
    expect([turn.replies, turn.state.quick_replies]).toEqual([['Standard or express?'], ['standard', 'express']]);
    turn = await runFlowTurn(flow!, turn.state, 'express', deps(tools, events));
    expect(turn.replies).toEqual(['Refund 25.5 for NW-1234?']);
    expect(turn.state.quick_replies).toEqual(['Yes', 'No']);
    turn = await runFlowTurn(flow!, turn.state, 'yes', deps(tools, events));
    expect(turn.replies).toEqual(['Refunded, reference R1.']);
    expect(calls).toEqual([{ id: 'c_pay_1', name: 'refund_order', arguments: { order: 'NW-1234', amount: 25.5 } }]);
    expect(turn.state).toMatchObject({ status: 'ended', slots: { ref: 'R1', amount: 25.5 } });
    expect(turn.messages.map((m) => m.role)).toEqual(['assistant', 'tool']);
    expect(events.filter((e) => e.type === 'flow').map((e) => (e as any).action)).toEqual([
      'started',
      'step',
      'slot',
      'step',
      'slot',
      'step',
      'slot',
      'step',
      'slot',
      'step',
      'ended',
    ]);
  });

  it('branches on a slot, re-asks with the reason, and gives up after max_attempts', async () => {
    const { tools } = recordingTools();
    const big = await converse(refund, ['refund', 'NW-1234', '250'], tools);
    expect(big.replies.at(-1)).toEqual(['A colleague handles refunds of 250 or more.']);
    expect(big.state.status).toBe('handoff');
    const wrong = await converse(refund, ['refund', 'NW-12', 'NW-99', 'NW-1'], tools);
    expect(wrong.replies[1]).toEqual(['That does not look like the order number. Which order?']);
    expect(wrong.replies.at(-1)).toEqual(["Sorry, I could not get that. Let's leave it here."]);
    expect(wrong.state.status).toBe('failed');
  });

  it('a failing tool goes to on_error, or ends the flow as failed', async () => {
    const { tools } = recordingTools(() => ({ output: { error: 'http_error' }, isError: true }));
    const failed = await converse(refund, ['refund', 'NW-1234', '10', 'standard', 'yes'], tools);
    expect(failed.state.status).toBe('failed');
    expect(failed.replies.at(-1)).toEqual(['Sorry, that did not work.']);
  });

  it('waits for a person before a tool step that needs approval, keeping nothing of the turn', async () => {
    const { tools, calls } = recordingTools();
    const [flow] = compileFlows([refund]);
    const state = (await converse(refund, ['refund', 'NW-1234', '10', 'standard'], tools)).state;
    const pending = [{ tool_call_id: 'c_pay_1', name: 'refund_order', arguments: {}, kind: 'approval' as const }];
    const turn = await runFlowTurn(flow!, state, 'yes', { ...deps(tools), pendingInput: async () => pending });
    expect(turn.pending).toEqual(pending);
    expect(calls).toHaveLength(0);
  });

  it('leaves with an exit phrase; the confirm question still reads "no" as no', async () => {
    const { tools } = recordingTools();
    const left = await converse(refund, ['refund', 'cancel'], tools);
    expect([left.state.status, left.replies.at(-1)]).toEqual(['exited', ['OK, I stopped here.']]);
    const declined = await converse(refund, ['refund', 'NW-1234', '10', 'standard', 'No'], tools);
    expect(declined.replies.at(-1)).toEqual(['Nothing was refunded.']);
  });

  it('is started by the model through flow__<name> with its valid arguments; invalid ones are asked for', async () => {
    const { tools } = recordingTools();
    const flows = compileFlows([refund]);
    const all = withFlowTools(flows, tools);
    expect(all.definitions().map((d) => d.name)).toEqual(['refund_order', 'flow__refund']);
    const result = await all.execute({
      type: 'tool_call',
      id: 'x',
      name: 'flow__refund',
      arguments: { order: 'NW-1234', amount: -3 },
    });
    expect(result).toMatchObject({
      endsRun: true,
      output: { flow: 'refund', status: 'active', slots: { order: 'NW-1234' } },
    });
    const turn = await runFlowTurn(flows[0]!, result.output as any, undefined, deps(tools));
    expect(turn.replies).toEqual(['How much?']);
  });

  it('finds the latest state in a transcript and matches triggers in config order', () => {
    const flows = compileFlows([refund, { ...refund, name: 'other', triggers: { patterns: ['refund|money'] } }]);
    expect(matchTrigger(flows, 'a REFUND please')?.flow.name).toBe('refund');
    expect(matchTrigger(flows, 'money back')?.flow.name).toBe('other');
    expect(matchTrigger(flows, 'hello')).toBeUndefined();
    const state = { flow: 'refund', status: 'active', slots: {}, attempts: 0 };
    expect(
      latestFlowState([
        {
          role: 'tool',
          content: [
            { type: 'tool_result', toolCallId: 'a', toolName: 'flow__refund', output: { ...state, status: 'ended' } },
          ],
        },
        { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'b', toolName: 'flow__refund', output: state }] },
        { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
      ])?.status,
    ).toBe('active');
    expect(
      latestFlowState([
        { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'x', toolName: 'flow__refund', output: 'junk' }] },
      ]),
    ).toBeUndefined();
  });
});

/** Generated flows: any wiring of steps (loops included) and any user text. */
const stepIds = ['s0', 's1', 's2', 's3', 's4', 's5'];
const stepArb = (id: string) =>
  fc.oneof(
    fc.record({
      id: fc.constant(id),
      type: fc.constant('ask' as const),
      slot: fc.constantFrom('a', 'b'),
      prompt: fc.constant(`ask ${id}`),
    }),
    fc.record({
      id: fc.constant(id),
      type: fc.constant('confirm' as const),
      prompt: fc.constant('ok?'),
      no: fc.constantFrom(...stepIds),
    }),
    fc.record({
      id: fc.constant(id),
      type: fc.constant('reply' as const),
      message: fc.constant('{{a}} and {{b}}'),
      next: fc.constantFrom(...stepIds),
    }),
    fc.record({
      id: fc.constant(id),
      type: fc.constant('branch' as const),
      branches: fc.constant([{ when: { required: ['a'] }, goto: 's0' }]),
      else: fc.constantFrom(...stepIds),
    }),
    fc.record({
      id: fc.constant(id),
      type: fc.constant('tool' as const),
      tool: fc.constant('refund_order'),
      arguments: fc.constant({ a: '{{a}}' }),
      next: fc.constantFrom(...stepIds),
    }),
    fc.record({ id: fc.constant(id), type: fc.constant('end' as const), message: fc.constant('bye {{a}}') }),
  );

describe('generated flows and hostile answers (property-based)', () => {
  it('every turn ends — asking, waiting or finished — within its bound, never throwing, whatever is typed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(...stepIds.map(stepArb)),
        fc.array(
          fc.oneof(fc.string(), fc.constantFrom('yes', 'no', 'cancel', '42', 'x'.repeat(5000), '{{a}}', '\u0000')),
          { maxLength: 6 },
        ),
        async (steps, inputs) => {
          const config: FlowConfig = {
            name: 'gen',
            description: 'generated',
            slots: {
              a: { schema: { type: 'string', maxLength: 10 }, pattern: '(\\w+)' },
              b: { schema: { type: 'integer' }, pattern: '(-?\\d+)' },
            },
            steps: steps as unknown as FlowConfig['steps'],
          };
          const { tools, calls } = recordingTools();
          const [flow] = compileFlows([config]);
          let state = startFlowState(flow!);
          for (const input of ['start', ...inputs]) {
            if (state.status !== 'active') break;
            const turn = await runFlowTurn(flow!, state, input, deps(tools));
            state = turn.state;
            // Active means it asked: a stored active state always waits for an answer.
            if (state.status === 'active') expect(state.awaiting).toBeDefined();
            for (const reply of turn.replies) expect(reply).not.toContain('{{');
          }
          expect(calls.length).toBeLessThanOrEqual(MAX_TRANSITIONS * (inputs.length + 1));
        },
      ),
      { numRuns: 300 },
    );
  });
});
