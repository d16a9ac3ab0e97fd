/**
 * The test editor's pure side (issue 22): blank cases and expectations, the tools and flow steps
 * a case can name, and where an API issue about a case belongs in the form. A case is the
 * contract's `AgentTestDefinition`, edited as is (the forms write the same JSON the API stores).
 */
import type { AgentConfigDocument } from '@agentry/contract';
import type {
  AgentTestDefinitionInput,
  Expectation,
  ExpectationType,
  TestTurn,
  ToolFixture,
} from '@agentry/contract/schemas';
import { parsePointer, toPointer } from './json-pointer.ts';

/** A case as the editor holds it: the definition with its lists present. */
export type TestDraft = Omit<AgentTestDefinitionInput, 'turns' | 'fixtures'> & {
  turns: Array<Omit<TestTurn, 'expect'> & { expect: Expectation[] }>;
  fixtures: ToolFixture[];
};

/** The kinds of expectation, in the order the select offers them. */
export const EXPECTATION_TYPES: readonly ExpectationType[] = [
  'tool_called',
  'tool_not_called',
  'reply_contains',
  'reply_not_contains',
  'reply_matches',
  'rubric',
  'flow_step',
  'handoff_requested',
  'cited',
];

/**
 * A new case: one empty user turn, no fixtures.
 *
 * @example
 * blankTest('Refund a broken order'); // { name: 'Refund a broken order', turns: [{ user: '', expect: [] }], fixtures: [] }
 */
export function blankTest(name: string): TestDraft {
  return { name, turns: [{ user: '', expect: [] }], fixtures: [] };
}

/** A stored definition as the editor holds it (lists present, nothing else changed). */
export function toDraft(definition: Record<string, unknown>): TestDraft {
  const d = definition as Partial<TestDraft>;
  return {
    ...(d as TestDraft),
    turns: (d.turns ?? []).map((turn) => ({ ...turn, expect: turn.expect ?? [] })),
    fixtures: d.fixtures ?? [],
  };
}

/**
 * A new expectation of `type`, filled with the first tool, flow and step the agent has, so a
 * choice in the select is already a valid expectation.
 *
 * @example
 * blankExpectation('tool_called', config); // { type: 'tool_called', tool: 'refund_order' }
 */
export function blankExpectation(type: ExpectationType, config: AgentConfigDocument): Expectation {
  const tool = testToolNames(config)[0] ?? '';
  const flow = config.flows?.[0];
  switch (type) {
    case 'tool_called':
    case 'tool_not_called':
      return { type, tool };
    case 'reply_contains':
    case 'reply_not_contains':
      return { type, text: '' };
    case 'reply_matches':
      return { type, pattern: '' };
    case 'rubric':
      return { type, rubric: '' };
    case 'flow_step':
      return { type, flow: flow?.name ?? '', step: flow?.steps?.[0]?.id ?? '' };
    case 'handoff_requested':
      return { type };
    case 'cited':
      return { type, document: '' };
  }
}

/**
 * The tools a case can name exactly: the agent's own tools and its skills (`skill__<name>`).
 * MCP tools are known only once discovered, so the editor lets their names be typed.
 *
 * @example
 * testToolNames({ tools: [{ name: 'refund_order', … }], skills: [{ name: 'billing', … }] }); // ['refund_order', 'skill__billing']
 */
export function testToolNames(config: AgentConfigDocument): string[] {
  const names = [
    ...(config.tools ?? []).map((tool) => tool.name),
    ...(config.skills ?? []).map((skill) => `skill__${skill.name}`),
  ];
  return [...new Set(names.filter(Boolean))];
}

/** The flows of the agent with their step ids, for the flow-step expectation's selects. */
export function flowSteps(config: AgentConfigDocument): Array<{ flow: string; steps: string[] }> {
  return (config.flows ?? [])
    .filter((flow) => flow.name)
    .map((flow) => ({ flow: flow.name, steps: (flow.steps ?? []).map((s) => s.id).filter(Boolean) }));
}

/**
 * The form field an API issue about a case belongs to: issues inside a JSON Schema (an
 * expectation's `arguments`, a fixture's `when`) or a fixture's output land on that editor;
 * any other on its own field.
 *
 * @example
 * testFieldPointer('/turns/0/expect/1/arguments/properties/order_id/const'); // '/turns/0/expect/1/arguments'
 */
export function testFieldPointer(path: string): string {
  const s = parsePointer(path);
  if (s[0] === 'turns' && s[2] === 'expect') return toPointer(s.slice(0, 5));
  if (s[0] === 'turns') return toPointer(s.slice(0, 3));
  if (s[0] === 'fixtures') return toPointer(s.slice(0, 3));
  return toPointer(s.slice(0, 1));
}

/**
 * `base`, or `base (2)`, `base (3)`… whichever no other case of the agent has (names are unique).
 *
 * @example
 * freeTestName(['Refund'], 'Refund'); // 'Refund (2)'
 */
export function freeTestName(taken: readonly string[], base: string): string {
  const names = new Set(taken);
  if (!names.has(base)) return base;
  let n = 2;
  while (names.has(`${base} (${n})`)) n++;
  return `${base} (${n})`;
}
