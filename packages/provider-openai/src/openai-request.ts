import type { ModelRequest, ToolChoice, ToolDefinition } from '@agentry/llm';
import type {
  ChatCompletionCreateParamsBase,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type { OpenAIProviderName } from './openai-errors.ts';
import { toOpenAIMessages } from './openai-messages.ts';

/**
 * Builds the Chat Completions body (without `stream`) for a neutral request.
 *
 * @example
 * toChatCompletionParams({ messages }, { model: 'gpt-4.1', provider: 'openai' });
 */
export function toChatCompletionParams(
  request: ModelRequest,
  target: { model: string; provider: OpenAIProviderName },
): ChatCompletionCreateParamsBase {
  const params: ChatCompletionCreateParamsBase = {
    model: target.model,
    messages: toOpenAIMessages(request.system, request.messages),
  };
  if (request.temperature !== undefined) params.temperature = request.temperature;
  if (request.maxOutputTokens !== undefined) {
    // OpenAI deprecated max_tokens (reasoning models reject it); compatible servers mostly only know max_tokens.
    if (target.provider === 'openai') params.max_completion_tokens = request.maxOutputTokens;
    else params.max_tokens = request.maxOutputTokens;
  }
  const tools = request.tools ?? [];
  // tool_choice and parallel_tool_calls are rejected by the API when no tools are sent.
  if (tools.length > 0) {
    params.tools = tools.map(toWireTool);
    if (request.toolChoice !== undefined) params.tool_choice = toWireToolChoice(request.toolChoice);
    if (request.parallelToolCalls !== undefined) params.parallel_tool_calls = request.parallelToolCalls;
  }
  return params;
}

function toWireTool(tool: ToolDefinition): ChatCompletionTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

function toWireToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  if (typeof choice === 'string') return choice;
  return { type: 'function', function: { name: choice.name } };
}
