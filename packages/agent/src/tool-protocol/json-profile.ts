import type { ToolCallPart, ToolDefinition, ToolResultPart } from '@agentry/llm';
import { choiceRule, offeredTools } from './describe-tools.ts';
import { JsonObjectEnd } from './json-braces.ts';
import { asRecord, callFromObject, tryParseJson, unreadableCall } from './parse-call-payload.ts';
import type { ProtocolProfile } from './protocol-profile.ts';

const CALL_TEMPLATE =
  '{"tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "<tool_name>", "arguments": "<arguments as a JSON-encoded string>"}}]}';
const RESULT_TEMPLATE = '{"tool_call_result": {"toolCallId": "call_1", "name": "<tool_name>", "result": <the result>}}';

/**
 * Seed 004 profile JSON_Strict: calls are a `{"tool_calls": [...]}` object in the reply, results come
 * back as `{"tool_call_result": ...}` user messages. The parser also accepts fenced JSON.
 *
 * @example
 * const model = withToolProtocol(base, 'json');
 */
export const jsonProfile: ProtocolProfile = {
  name: 'json',
  triggers: '{`',
  kinds: [
    {
      tokens: [{ lit: '{' }, { ws: true }, { lit: '"tool_calls"' }],
      bodyStart: () => 0,
      endFinder: (bodyStart) => new JsonObjectEnd(bodyStart, false),
    },
    {
      tokens: [{ lit: '```' }, { opt: 'json' }, { ws: true }, { lit: '{' }, { ws: true }, { lit: '"tool_calls"' }],
      bodyStart: (text) => text.indexOf('{'),
      endFinder: (bodyStart) => new JsonObjectEnd(bodyStart, true),
    },
  ],
  instructions(tools, choice, parallel) {
    return [
      '### TOOL_USE_PROTOCOL',
      'You have access to a set of tools. To use a tool, output a JSON object strictly following the `tool_calls` schema below.',
      '- **Trigger**: when you need external data or an action, output the JSON immediately.',
      '- **Constraints**: do NOT wrap the JSON in markdown code blocks; it must be valid JSON; `arguments` is a JSON-encoded string.',
      choiceRule(choice, parallel),
      '',
      `Call format:\n${CALL_TEMPLATE}`,
      '',
      `Results come back in a user message as:\n${RESULT_TEMPLATE}`,
      '',
      ...offeredTools(tools, choice).map(describeTool),
    ].join('\n');
  },
  renderCalls: (calls) => JSON.stringify({ tool_calls: calls.map(wireCall) }),
  renderResults: (results) => results.map(renderResult).join('\n'),
  parseBlock(body, newId) {
    const parsed = tryParseJson(body);
    const list = asRecord(parsed?.value)?.tool_calls;
    if (!Array.isArray(list)) return [unreadableCall(body, newId)];
    return list.map((item) => callFromObject(item, newId));
  },
};

function describeTool(tool: ToolDefinition): string {
  const schema = { type: 'function', function: { name: tool.name, parameters: tool.parameters } };
  return `#### Available Tool: ${tool.name}\n- **Description**: ${tool.description}\n- **Schema**: ${JSON.stringify(schema)}\n`;
}

function wireCall(call: ToolCallPart) {
  const args = call.rawArguments ?? JSON.stringify(call.arguments ?? {});
  return { id: call.id, type: 'function', function: { name: call.name, arguments: args } };
}

function renderResult(result: ToolResultPart): string {
  const body = {
    toolCallId: result.toolCallId,
    name: result.toolName,
    result: result.output,
    ...(result.isError ? { isError: true } : {}),
  };
  return JSON.stringify({ tool_call_result: body });
}
