import type { ModelRequest, ToolChoice, ToolDefinition } from '@agentry/llm';
import type {
  MessageCreateParamsBase,
  TextBlockParam,
  Tool,
  ToolChoice as WireToolChoice,
} from '@anthropic-ai/sdk/resources/messages';
import { toAnthropicMessages } from './anthropic-messages.ts';

/** Messages API requires `max_tokens`; used when the request sets no limit. */
export const DEFAULT_MAX_TOKENS = 4096;

/** Adapter-level settings that shape every request. */
export interface RequestTarget {
  model: string;
  thinking?: { budgetTokens: number } | undefined;
}

/**
 * Builds the Messages API body (without `stream`) for a neutral request.
 *
 * @example
 * toMessageParams({ system: 'Be brief', messages, cacheHints: true }, { model: 'claude-sonnet-4-5' });
 */
export function toMessageParams(request: ModelRequest, target: RequestTarget): MessageCreateParamsBase {
  const params: MessageCreateParamsBase = {
    model: target.model,
    max_tokens: maxTokensOf(request, target),
    messages: toAnthropicMessages(request.messages),
  };
  if (request.system) params.system = toSystem(request.system, request.cacheHints === true);
  // `temperature` is not sent: the Messages API deprecated it and the SDK's types no longer have it.
  if (target.thinking) params.thinking = { type: 'enabled', budget_tokens: target.thinking.budgetTokens };
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    params.tools = toWireTools(tools, request.cacheHints === true);
    const choice = toWireToolChoice(request.toolChoice, request.parallelToolCalls);
    if (choice) params.tool_choice = choice;
  }
  return params;
}

/** With thinking, the budget counts against max_tokens, so the default leaves room for the answer too. */
function maxTokensOf(request: ModelRequest, target: RequestTarget): number {
  if (request.maxOutputTokens !== undefined) return request.maxOutputTokens;
  return (target.thinking?.budgetTokens ?? 0) + DEFAULT_MAX_TOKENS;
}

function toSystem(system: string, cache: boolean): string | TextBlockParam[] {
  if (!cache) return system;
  return [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }];
}

/** A cache breakpoint on the last tool caches all tool definitions before it as one prefix. */
function toWireTools(tools: ToolDefinition[], cache: boolean): Tool[] {
  return tools.map((tool, i) => {
    const wire: Tool = {
      name: tool.name,
      description: tool.description,
      input_schema: tool.parameters as Tool.InputSchema,
    };
    if (cache && i === tools.length - 1) wire.cache_control = { type: 'ephemeral' };
    return wire;
  });
}

function toWireToolChoice(choice: ToolChoice | undefined, parallel: boolean | undefined): WireToolChoice | undefined {
  // Anthropic expresses "no parallel calls" on the tool choice itself.
  const disable = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return parallel === false ? { type: 'auto', ...disable } : undefined;
  if (choice === 'none') return { type: 'none' };
  if (choice === 'auto') return { type: 'auto', ...disable };
  if (choice === 'required') return { type: 'any', ...disable };
  return { type: 'tool', name: choice.name, ...disable };
}
