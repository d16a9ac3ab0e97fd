import type { ToolExecutionResult, ToolExecutor } from '@agentry/agent';
import { type CompiledAgent, DEFAULT_DENY_MESSAGE } from '@agentry/config';

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

function denied(message: string): ToolExecutionResult {
  return {
    isError: true,
    errorCode: PERMISSION_DENIED,
    output: { error: PERMISSION_DENIED, message },
    meta: { permission: 'deny' },
  };
}
