import type { Message, ModelRequest, ToolChoice, ToolDefinition } from '@agentry/llm';
import type { AgentRunOptions } from './run-options.ts';

/**
 * The request of one step. Tools stay defined even with tool choice 'none': providers need them
 * to read earlier tool calls in the history.
 *
 * @example
 * buildRequest(options, tools, 'auto', messages);
 */
export function buildRequest(
  options: AgentRunOptions,
  tools: ToolDefinition[],
  toolChoice: ToolChoice,
  messages: Message[],
): ModelRequest {
  const hasTools = tools.length > 0;
  return {
    system: options.system,
    messages,
    ...(hasTools ? { tools, toolChoice } : {}),
    ...(hasTools && options.parallelToolCalls !== undefined ? { parallelToolCalls: options.parallelToolCalls } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
    ...(options.cacheHints ? { cacheHints: true } : {}),
  };
}

/** 'required' and named choices force a tool every step; after tools ran they revert to 'auto'. */
export function nextToolChoice(current: ToolChoice, toolsRan: boolean, reset: boolean): ToolChoice {
  if (!toolsRan || !reset) return current;
  return current === 'required' || typeof current === 'object' ? 'auto' : current;
}
