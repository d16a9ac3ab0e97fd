import type { Citation } from '@agentry/contract/schemas';
import type { ContentPart, ToolCallPart, ToolResultPart } from '@agentry/llm';

/** What one turn of a test conversation showed: the facts its expectations are checked against. */
export interface TurnObservation {
  /** Everything the agent said in the turn (its text messages, in order). */
  reply: string;
  toolCalls: Array<{ name: string; arguments: unknown; output: unknown; isError: boolean; fixture: boolean }>;
  citations: Citation[];
  /** The state of the flow the turn ended in, if a flow took part. */
  flow: { flow: string; step: string | null; status: string } | null;
  /** Every `flow/step` the turn passed through (from the run's events), in order. */
  flowSteps: string[];
  /** The turn asked for a person (the model's `handoff_to_human` or a flow's handoff step). */
  handoff: boolean;
}

/** Tools of the platform's own (answered for real in a test: they send nothing outside). */
const BUILT_IN = /^(search_knowledge|handoff_to_human|flow__.+|done)$/;

const HANDOFF_TOOL = 'handoff_to_human';

/**
 * Reads a turn's observation from the messages its run wrote (model and tool messages, in order)
 * and the `flow` events its stream carried.
 *
 * @example
 * const seen = observeTurn(await listRunMessages(db, tenantId, run.id), flowEvents);
 */
export function observeTurn(
  messages: ReadonlyArray<{ role: string; content: ContentPart[] }>,
  flowEvents: ReadonlyArray<{ flow: string; stepId?: string | undefined }> = [],
): TurnObservation {
  const produced = messages.filter((m) => m.role !== 'user');
  const results = new Map<string, ToolResultPart>();
  for (const m of produced) for (const p of m.content) if (p.type === 'tool_result') results.set(p.toolCallId, p);
  const calls = produced.flatMap((m) => m.content.filter((p): p is ToolCallPart => p.type === 'tool_call'));
  const texts = produced
    .filter((m) => m.role === 'assistant')
    .flatMap((m) => m.content.flatMap((p) => (p.type === 'text' && p.text.trim() ? [p.text] : [])));
  const citations = produced.flatMap((m) =>
    m.content.flatMap((p) => (p.type === 'text' && p.citations ? (p.citations as Citation[]) : [])),
  );
  let flow: TurnObservation['flow'] = null;
  let handoff = false;
  for (const result of results.values()) {
    const output = result.output as Record<string, unknown> | null;
    if (result.toolName.startsWith('flow__') && output && typeof output.flow === 'string') {
      flow = {
        flow: output.flow,
        step: typeof output.step === 'string' ? output.step : null,
        status: String(output.status ?? ''),
      };
      if (output.status === 'handoff') handoff = true;
    }
    if (result.toolName === HANDOFF_TOOL && !result.isError && output?.status !== 'unavailable') handoff = true;
  }
  return {
    reply: texts.join('\n\n'),
    toolCalls: calls.map((call) => {
      const result = results.get(call.id);
      return {
        name: call.name,
        arguments: call.arguments,
        output: result?.output ?? null,
        isError: result?.isError ?? false,
        fixture: !BUILT_IN.test(call.name),
      };
    }),
    citations,
    flow,
    flowSteps: [
      ...new Set([
        ...flowEvents.flatMap((e) => (e.stepId ? [`${e.flow}/${e.stepId}`] : [])),
        ...(flow?.step ? [`${flow.flow}/${flow.step}`] : []),
      ]),
    ],
    handoff,
  };
}
