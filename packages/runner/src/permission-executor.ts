import type { ToolExecutionResult, ToolExecutor } from '@agentry/agent';
import { type CompiledAgent, DEFAULT_DENY_MESSAGE } from '@agentry/config';
import { declinedResult } from './recording-executor.ts';

/** The stable error code of a call a `deny` rule refused. */
export const PERMISSION_DENIED = 'permission_denied';

/**
 * Puts the agent's `deny` rules in front of every tool of a run (HTTP, client and MCP tools,
 * skills): a denied call is answered with the rule's message as a tool error and never reaches
 * the executor behind, so no request is sent and no browser is asked. It sits inside the
 * recording executor, so a denied call is still recorded as completed (with its error) and a
 * resumed run replays that answer instead of deciding again. `ask` needs nothing here: such calls
 * wait for a person before the step runs (`pending-input.ts`) and reach this executor once approved.
 *
 * Skills: the rules apply to the call of the skill (`skill__<name>`) only; inside the skill its own
 * config governs its tools.
 *
 * @example
 * const tools = withPermissions(agent, composeExecutors(http, mcp, skills));
 */
export function withPermissions(agent: CompiledAgent, inner: ToolExecutor): ToolExecutor {
  return {
    definitions: () => inner.definitions(),
    execute(call, options) {
      const decision = agent.decidePermission(call.name, call.arguments);
      if (decision.action !== 'deny') return inner.execute(call, options);
      return Promise.resolve(denied(decision.rule?.message ?? DEFAULT_DENY_MESSAGE));
    },
  };
}

/**
 * The same rules for flow tools (`flow__<name>`), which only start a flow and sit outside the
 * recording executor: a denied start is answered like any denied call, and one a person declined
 * (under an `ask` rule) as declined; either way the flow never starts. Every other call passes
 * through untouched (it meets the rules inside the recording executor). A flow a trigger pattern
 * starts is no tool call and meets no rule; its tool steps do.
 *
 * @example
 * const tools = withFlowStartPermissions(agent, withFlowTools(flows, recorded), flowNames, isDeclined);
 */
export function withFlowStartPermissions(
  agent: CompiledAgent,
  inner: ToolExecutor,
  flowTools: ReadonlySet<string>,
  wasDeclined: (toolCallId: string) => Promise<boolean>,
): ToolExecutor {
  if (flowTools.size === 0) return inner;
  return {
    definitions: () => inner.definitions(),
    async execute(call, options) {
      if (!flowTools.has(call.name)) return inner.execute(call, options);
      const decision = agent.decidePermission(call.name, call.arguments);
      if (decision.action === 'deny') return denied(decision.rule?.message ?? DEFAULT_DENY_MESSAGE);
      if (decision.action === 'ask' && (await wasDeclined(call.id))) return declinedResult();
      return inner.execute(call, options);
    },
  };
}

function denied(message: string): ToolExecutionResult {
  return {
    isError: true,
    errorCode: PERMISSION_DENIED,
    output: { error: PERMISSION_DENIED, message },
    meta: { permission: 'deny' },
  };
}
