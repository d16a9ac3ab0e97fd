import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkAgentConfig } from './load-agent-config.ts';
import { type Loose, mutated } from './test-support/base-config.ts';

type Case = [name: string, change: (flow: Loose, config: Loose) => void, path: string, code: string];

const leaveRequest = JSON.parse(readFileSync(new URL('../../../configs/leave-request.json', import.meta.url), 'utf8'));

/** The base config plus a small valid flow calling its tool. */
function withFlow(change: (flow: Loose, config: Loose) => void = () => {}) {
  return mutated((c) => {
    c.flows = [
      {
        name: 'book',
        description: 'Book a call',
        triggers: { patterns: ['(?i)book a call'] },
        slots: { email: { schema: { type: 'string', format: 'email' }, pattern: '(\\S+@\\S+)' } },
        steps: [
          { id: 'ask_email', type: 'ask', slot: 'email', prompt: 'Your email?' },
          { id: 'save', type: 'tool', tool: c.tools[0].name, arguments: { email: '{{email}}' }, save: { id: '/id' } },
          { id: 'done', type: 'end', message: 'Booked for {{email}} ({{id}}), {{context.userId}}.' },
        ],
      },
    ];
    change(c.flows[0], c);
  });
}

const cases: Case[] = [
  ['flow name with capitals', (f) => (f.name = 'Book'), '/flows/0/name', 'invalid_format'],
  ['duplicate flow names', (f, c) => c.flows.push(structuredClone(f)), '/flows/1/name', 'duplicate_flow_name'],
  [
    'look-ahead trigger',
    (f) => (f.triggers.patterns = ['(?=x)']),
    '/flows/0/triggers/patterns/0',
    'unsupported_pattern',
  ],
  [
    'back-reference slot pattern',
    (f) => (f.slots.email.pattern = '(a)\\1'),
    '/flows/0/slots/email/pattern',
    'unsupported_pattern',
  ],
  [
    'slot named result',
    (f) => (f.slots.result = { schema: { type: 'string' } }),
    '/flows/0/slots/result',
    'reserved_slot_name',
  ],
  ['ask for an undeclared slot', (f) => (f.steps[0].slot = 'emial'), '/flows/0/steps/0/slot', 'unknown_slot'],
  ['ask without prompt', (f) => delete f.steps[0].prompt, '/flows/0/steps/0/prompt', 'missing_field'],
  ['step type unknown', (f) => (f.steps[0].type = 'loop'), '/flows/0/steps/0/type', 'invalid_value'],
  ['duplicate step id', (f) => (f.steps[1].id = 'ask_email'), '/flows/0/steps/1/id', 'duplicate_step_id'],
  ['next to a missing step', (f) => (f.steps[0].next = 'nowhere'), '/flows/0/steps/0/next', 'unknown_step'],
  ['on_error to a missing step', (f) => (f.steps[1].on_error = 'oops'), '/flows/0/steps/1/on_error', 'unknown_step'],
  [
    'branch to a missing step',
    (f) => f.steps.splice(1, 0, { id: 'b', type: 'branch', branches: [{ when: { required: ['email'] }, goto: 'x' }] }),
    '/flows/0/steps/1/branches/0/goto',
    'unknown_step',
  ],
  ['tool step calling no tool', (f) => (f.steps[1].tool = 'nope'), '/flows/0/steps/1/tool', 'unknown_tool'],
  [
    'tool step calling a client tool',
    (f, c) => {
      c.tools.push({ name: 'pick_date', description: 'Pick', type: 'client', parameters: { type: 'object' } });
      f.steps[1].tool = 'pick_date';
    },
    '/flows/0/steps/1/tool',
    'client_tool_in_flow',
  ],
  [
    'save pointer without slash',
    (f) => (f.steps[1].save = { id: 'id' }),
    '/flows/0/steps/1/save/id',
    'invalid_pointer',
  ],
  [
    'a secret in a reply',
    (f) => (f.steps[2].message = 'key {{secrets.API_KEY}}'),
    '/flows/0/steps/2/message',
    'template_not_allowed',
  ],
  [
    'an end-user token in arguments',
    (f) => (f.steps[1].arguments = { t: '{{user.token}}' }),
    '/flows/0/steps/1/arguments/t',
    'template_not_allowed',
  ],
  [
    'a template reading an unknown slot',
    (f) => (f.steps[2].message = 'Hi {{name}}'),
    '/flows/0/steps/2/message',
    'unknown_slot',
  ],
  [
    'unknown context variable',
    (f) => (f.steps[2].message = '{{context.plan}}'),
    '/flows/0/steps/2/message',
    'unknown_context_variable',
  ],
  [
    'broken template',
    (f) => (f.steps[0].prompt = 'Your {{#if x}}email{{/if}}?'),
    '/flows/0/steps/0/prompt',
    'template_not_allowed',
  ],
  [
    'branch condition with a look-ahead',
    (f) =>
      f.steps.splice(1, 0, {
        id: 'b',
        type: 'branch',
        branches: [{ when: { properties: { email: { pattern: '(?!x)' } } }, goto: 'done' }],
      }),
    '/flows/0/steps/1/branches/0/when/properties/email/pattern',
    'unsupported_pattern',
  ],
  ['max_attempts zero', (f) => (f.max_attempts = 0), '/flows/0/max_attempts', 'out_of_range'],
];

describe('flows in agent configs', () => {
  it('accepts the example leave-request agent and a small flow', () => {
    expect(checkAgentConfig(leaveRequest)).toMatchObject({ ok: true });
    const small = checkAgentConfig(withFlow());
    expect(small.ok ? [] : small.issues).toEqual([]);
  });

  it.each(cases)('%s', (_name, change, path, code) => {
    const result = checkAgentConfig(withFlow(change));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => [i.path, i.code])).toContainEqual([path, code]);
  });

  it('reports every problem of every flow in one pass', () => {
    const result = checkAgentConfig(
      withFlow((f, c) => {
        f.steps[0].slot = 'nope';
        f.steps[1].tool = 'nope';
        c.flows.push({
          ...structuredClone(f),
          name: 'second',
          steps: [{ id: 'a', type: 'reply', message: '{{secrets.X}}' }],
        });
      }),
    );
    expect(result.ok ? [] : result.issues.map((i) => i.path)).toEqual([
      '/flows/0/steps/0/slot',
      '/flows/0/steps/1/tool',
      '/flows/1/steps/0/message',
    ]);
  });
});
