import type { PendingInput } from '@agentry/agent';
import type { CompiledAgent } from '@agentry/config';
import { type Db, type RunRef, toolCallRecords } from '@agentry/db';
import type { ToolCallPart } from '@agentry/llm';

/**
 * Which kind of person's answer a tool call needs, if any, under the agent's permission rules
 * (evaluated on this call's arguments; no rule: the tool's own `approval`). A denied call needs
 * nobody: the permission executor answers it. A client tool always waits for the browser, also
 * under an `ask` rule: the person in front of it is the one who answers (no approval first).
 * The built-in `done` tool is the loop's own, never asked about; every other name is, whatever
 * executor offers it (HTTP, MCP, skills, flows), so new kinds of tools need nothing here.
 *
 * @example
 * inputKind(agent, { type: 'tool_call', id: 'c1', name: 'refund_order', arguments: { amount: 5000 } }); // 'approval'
 */
export function inputKind(
  agent: CompiledAgent,
  call: Pick<ToolCallPart, 'name' | 'arguments'>,
): PendingInput['kind'] | undefined {
  const tool = agent.tools.find((t) => t.name === call.name);
  if (agent.requireDoneTool && call.name === DONE_TOOL_NAME) return undefined;
  const { action } = agent.decidePermission(call.name, call.arguments);
  if (action === 'deny') return undefined;
  if (tool?.kind === 'client') return 'client';
  return action === 'ask' ? 'approval' : undefined;
}

/** The loop's default name for the built-in done tool (the runner never renames it). */
const DONE_TOOL_NAME = 'done';

/**
 * The calls of a step that wait for a person and have no recorded answer yet: client tools
 * without a result, and calls to approve (an `ask` rule, or `approval: always`) without a decision.
 *
 * @example
 * const pending = await unansweredInput(db, agent, run, calls);
 */
export async function unansweredInput(
  db: Db,
  agent: CompiledAgent,
  run: RunRef,
  calls: ToolCallPart[],
): Promise<PendingInput[]> {
  const needing = calls.flatMap((call) => {
    const kind = inputKind(agent, call);
    return kind ? [{ call, kind }] : [];
  });
  if (needing.length === 0) return [];
  const answered = new Set(
    (
      await toolCallRecords(
        db,
        run,
        needing.map((n) => n.call.id),
      )
    )
      .filter((r) => r.status !== 'started')
      .map((r) => r.toolCallId),
  );
  return needing
    .filter((n) => !answered.has(n.call.id))
    .map(({ call, kind }) => ({ tool_call_id: call.id, name: call.name, arguments: call.arguments, kind }));
}
