import type { ToolExecutor } from '@agentry/agent';

/**
 * One ToolExecutor over several (HTTP tools, MCP tools, skills): definitions are concatenated and
 * each call goes to the executor that defines its name. Names are unique across sources (the
 * config loader refuses collisions), so the first match is the only one. An unknown name goes to
 * the first executor, which answers `unknown_tool` like it always did.
 *
 * @example
 * const tools = composeExecutors(http, mcp, skills);
 */
export function composeExecutors(first: ToolExecutor, ...rest: ToolExecutor[]): ToolExecutor {
  const all = [first, ...rest];
  return {
    definitions: () => all.flatMap((executor) => executor.definitions()),
    execute(call, options) {
      const owner = all.find((executor) => executor.definitions().some((d) => d.name === call.name)) ?? first;
      return owner.execute(call, options);
    },
  };
}
