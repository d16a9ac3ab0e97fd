import type { ToolExecutor } from '@agentry/agent';
import type { ToolDefinition } from '@agentry/llm';
import type { CompiledFlow } from './compile-flows.ts';
import { startFlowState } from './run-flow-turn.ts';
import { validateSlot } from './slot-values.ts';

/**
 * A flow as the model sees it: the tool `flow__<name>` with the flow's description, whose optional
 * arguments are the slots (so the model passes what the user already said).
 *
 * @example
 * flowToolDefinition(flow).name; // 'flow__leave_request'
 */
export function flowToolDefinition(flow: CompiledFlow): ToolDefinition {
  const slots = flow.config.slots ?? {};
  return {
    name: flow.toolName,
    description: `${flow.config.description} Starts a guided procedure that then talks to the user itself; pass any of its values the user already gave.`,
    parameters: {
      type: 'object',
      properties: Object.fromEntries(
        Object.entries(slots).map(([name, slot]) => [
          name,
          {
            ...(slot.schema as Record<string, unknown>),
            ...(slot.description ? { description: slot.description } : {}),
          },
        ]),
      ),
      additionalProperties: false,
    },
  };
}

/**
 * The agent's tools plus one `flow__<name>` tool per flow. Calling a flow tool starts the flow: its
 * result is the flow's first state (with the valid values the model passed; invalid ones are asked
 * for), and the run's model turn ends there — the flow speaks next (`endsRun`).
 *
 * @example
 * const tools = withFlowTools(flows, recordedTools);
 */
export function withFlowTools(flows: readonly CompiledFlow[], inner: ToolExecutor): ToolExecutor {
  if (flows.length === 0) return inner;
  const byTool = new Map(flows.map((flow) => [flow.toolName, flow]));
  const definitions = flows.map(flowToolDefinition);
  return {
    definitions: () => [...inner.definitions(), ...definitions],
    async execute(call, options) {
      const flow = byTool.get(call.name);
      if (!flow) return inner.execute(call, options);
      const given =
        call.arguments && typeof call.arguments === 'object' ? (call.arguments as Record<string, unknown>) : {};
      const slots: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(given)) {
        if (!Object.hasOwn(flow.config.slots ?? {}, name)) continue;
        const reading = validateSlot(flow, name, value);
        if (reading.ok) slots[name] = reading.value;
      }
      return { isError: false, output: startFlowState(flow, slots), endsRun: true };
    },
  };
}
