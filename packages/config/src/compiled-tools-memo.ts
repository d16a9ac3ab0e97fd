import type { AgentConfig } from '@agentry/contract';
import type { CompiledTool } from './compiled-agent.ts';

// The loader must compile every tool to find template problems; keeping the result (weakly, per
// loaded config object) spares compileAgent doing the same work again.
const memo = new WeakMap<AgentConfig, CompiledTool[]>();

/** Records the tools compiled while validating a (frozen, cached) config. */
export function rememberCompiledTools(config: AgentConfig, tools: CompiledTool[]): void {
  memo.set(config, tools);
}

/**
 * The tools compiled during validation of exactly this config object, if any.
 *
 * @example
 * const tools = compiledToolsOf(config) ?? compileEachTool(config);
 */
export function compiledToolsOf(config: AgentConfig): CompiledTool[] | undefined {
  return memo.get(config);
}
