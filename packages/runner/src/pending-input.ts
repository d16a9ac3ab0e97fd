import type { PendingInput } from '@agentry/agent';
import type { CompiledAgent } from '@agentry/config';
import { type Db, type RunRef, toolCallRecords } from '@agentry/db';
import type { ToolCallPart } from '@agentry/llm';

/** Which kind of person's answer a tool call needs, if any. */
export function inputKind(agent: CompiledAgent, name: string): PendingInput['kind'] | undefined {
  const tool = agent.tools.find((t) => t.name === name);
  if (tool?.kind === 'client') return 'client';
  if (tool?.approval === 'always') return 'approval';
  return undefined;
}

/**
 * The calls of a step that wait for a person and have no recorded answer yet: client tools
 * without a result, and approval tools without a decision.
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
    const kind = inputKind(agent, call.name);
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
