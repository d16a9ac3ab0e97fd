/**
 * "Save as test" (issue 22): a conversation as it happened becomes a test case. The user's
 * messages become the turns; each tool the agent called becomes a `tool_called` expectation of
 * its turn (by name) and a fixture answering with the output that came back, so the test replays
 * the same tool answers without sending anything. The replies seed no expectation: a model words
 * them differently every time, and a guessed phrase would fail for nothing; the person adds a
 * "reply contains" or a rubric in the editor.
 */
import type { ConversationDetail, Expectation, Message, ToolFixture } from '@agentry/contract/schemas';
import type { TestDraft } from './agent-tests.ts';

/** The platform's own tools: answered for real in a test (they send nothing outside), so no fixture. */
const BUILT_IN = /^(search_knowledge|handoff_to_human|flow__.+|done)$/;

/** The most characters of the first message a case's name takes. */
const NAME_CHARS = 60;

type Part = Message['content'][number];
type ToolCall = Extract<Part, { type: 'tool_call' }>;
type ToolResult = Extract<Part, { type: 'tool_result' }>;

/**
 * The test case a conversation stands for. Only the visitor's messages make turns (a member's
 * replies and notes are not the agent's doing); built-in tools give expectations (a handoff, a
 * flow step reached) but no fixture.
 *
 * @example
 * conversationToTest(conversation, { name: 'Refund a broken order', description: 'Saved from conversation c1' });
 * // { name, description, turns: [{ user: 'Refund order 1042', expect: [{ type: 'tool_called', tool: 'refund_order' }] }],
 * //   fixtures: [{ tool: 'refund_order', output: { status: 'refunded' } }] }
 */
export function conversationToTest(
  conversation: Pick<ConversationDetail, 'messages' | 'context'>,
  meta: { name: string; description?: string },
): TestDraft {
  const turns: TestDraft['turns'] = [];
  const calls = new Map<string, ToolCall>();
  const results: Array<{ call: ToolCall | undefined; result: ToolResult }> = [];
  for (const message of conversation.messages) {
    if (message.role === 'user') {
      if (message.author) continue;
      const text = textOf(message);
      if (text) turns.push({ user: text, expect: [] });
      continue;
    }
    const turn = turns.at(-1);
    for (const part of message.content) {
      if (part.type === 'tool_call') {
        calls.set(part.id, part);
        if (turn) addExpectation(turn.expect, callExpectation(part));
      } else if (part.type === 'tool_result') {
        results.push({ call: calls.get(part.tool_call_id), result: part });
        if (turn) addExpectation(turn.expect, flowExpectation(part));
      }
    }
  }
  const context = conversation.context ?? {};
  return {
    name: meta.name,
    ...(meta.description ? { description: meta.description } : {}),
    ...(Object.keys(context).length > 0 ? { context } : {}),
    turns,
    fixtures: fixturesOf(results),
  };
}

/**
 * A case name from the conversation's first message ("Please refund order 1042, it arrived…").
 *
 * @example
 * testNameFrom(conversation.messages, 'Saved conversation'); // 'Please refund order 1042, it arrived broken.'
 */
export function testNameFrom(messages: readonly Message[], fallback: string): string {
  const first = messages.find((m) => m.role === 'user' && !m.author);
  const text = (first ? textOf(first) : '').replace(/\s+/g, ' ').trim();
  if (!text) return fallback;
  return text.length > NAME_CHARS ? `${text.slice(0, NAME_CHARS - 1).trimEnd()}…` : text;
}

function textOf(message: Message): string {
  return message.content
    .flatMap((p) => (p.type === 'text' ? [p.text] : []))
    .join('\n')
    .trim();
}

function callExpectation(call: ToolCall): Expectation | undefined {
  if (call.name === 'handoff_to_human') return { type: 'handoff_requested' };
  if (BUILT_IN.test(call.name)) return undefined;
  return { type: 'tool_called', tool: call.name };
}

/** A flow's result names the step it reached: that step is what the turn showed. */
function flowExpectation(result: ToolResult): Expectation | undefined {
  if (!result.name.startsWith('flow__')) return undefined;
  const output = result.output as { flow?: unknown; step?: unknown } | null;
  if (typeof output?.flow !== 'string' || typeof output.step !== 'string') return undefined;
  return { type: 'flow_step', flow: output.flow, step: output.step };
}

function addExpectation(list: Expectation[], expectation: Expectation | undefined): void {
  if (!expectation) return;
  const key = JSON.stringify(expectation);
  if (!list.some((e) => JSON.stringify(e) === key)) list.push(expectation);
}

/**
 * One fixture per tool when every call of it got the same answer; otherwise one per call, told
 * apart by the call's plain arguments (`order_id = 1042`), so each call gets its own answer back.
 */
function fixturesOf(results: ReadonlyArray<{ call: ToolCall | undefined; result: ToolResult }>): ToolFixture[] {
  const byTool = new Map<string, Array<{ call: ToolCall | undefined; fixture: ToolFixture }>>();
  for (const { call, result } of results) {
    if (BUILT_IN.test(result.name)) continue;
    const list = byTool.get(result.name) ?? [];
    list.push({ call, fixture: fixtureOf(result) });
    byTool.set(result.name, list);
  }
  const fixtures: ToolFixture[] = [];
  for (const list of byTool.values()) {
    const answers = new Set(list.map((f) => JSON.stringify(f.fixture)));
    if (answers.size === 1) {
      fixtures.push(list[0]!.fixture);
      continue;
    }
    const seen = new Set<string>();
    for (const { call, fixture } of list) {
      const when = argumentsMatch(call?.arguments);
      const entry = when ? { ...fixture, when } : fixture;
      const key = JSON.stringify(entry);
      if (!seen.has(key)) fixtures.push(entry);
      seen.add(key);
    }
  }
  return fixtures;
}

/** A person's "no" is replayed as a declined approval; anything else as the output that came back. */
function fixtureOf(result: ToolResult): ToolFixture {
  const output = result.output as { error?: unknown } | null;
  if (result.is_error && output?.error === 'declined') return { tool: result.name, decision: 'decline' };
  return {
    tool: result.name,
    ...(result.output !== undefined && result.output !== null ? { output: result.output } : {}),
    ...(result.is_error ? { is_error: true } : {}),
  };
}

/** The call's text, number and true/false arguments as "equals" conditions (what the editor shows as rows). */
function argumentsMatch(args: unknown): Record<string, unknown> | undefined {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return undefined;
  const plain = Object.entries(args).filter(
    ([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean',
  );
  if (plain.length === 0) return undefined;
  return {
    properties: Object.fromEntries(plain.map(([k, v]) => [k, { const: v }])),
    required: plain.map(([k]) => k),
  };
}
