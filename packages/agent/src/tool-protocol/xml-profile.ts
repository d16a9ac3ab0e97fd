import type { ToolCallPart, ToolDefinition, ToolResultPart } from '@agentry/llm';
import { parseCallSyntax } from './call-syntax.ts';
import { CloseTagEnd } from './close-tag-end.ts';
import { choiceRule, offeredTools, outputText } from './describe-tools.ts';
import { callFromObject, tryParseJson, unreadableCall } from './parse-call-payload.ts';
import type { BlockKind, ProtocolProfile } from './protocol-profile.ts';

const CALL_TEMPLATE = '<tool_code>\n{"name": "<tool_name>", "arguments": {<arguments>}}\n</tool_code>';
const RESULT_TEMPLATE = '<tool_result>\n<id>…</id>\n<name>…</name>\n<content>\n…\n</content>\n</tool_result>';

function tagKind(tag: string): BlockKind {
  const open = `<${tag}>`;
  return {
    tokens: [{ lit: open }],
    bodyStart: () => open.length,
    endFinder: (bodyStart) => new CloseTagEnd(`</${tag}>`, bodyStart),
  };
}

/**
 * Seed 004 profile XML_Tag: each call is a `<tool_code>` block holding `{"name", "arguments"}` (or
 * `name(k="v")`), results come back as `<tool_result>` blocks. `<tool_call>` is accepted too.
 *
 * @example
 * const model = withToolProtocol(base, 'xml');
 */
export const xmlProfile: ProtocolProfile = {
  name: 'xml',
  triggers: '<',
  kinds: [tagKind('tool_code'), tagKind('tool_call')],
  instructions(tools, choice, parallel) {
    return [
      '### TOOL_USE_PROTOCOL',
      'You can invoke tools by wrapping your request in `<tool_code>` tags.',
      '- **Workflow**: 1. think about the parameters needed; 2. output one `<tool_code>` block per call holding a JSON object with the tool name and arguments; 3. stop and wait for the `<tool_result>`.',
      choiceRule(choice, parallel),
      '',
      `Call format:\n${CALL_TEMPLATE}`,
      '',
      `Results come back in a user message as:\n${RESULT_TEMPLATE}`,
      '',
      ...offeredTools(tools, choice).map(describeTool),
    ].join('\n');
  },
  renderCalls: (calls) => calls.map(renderCall).join('\n'),
  renderResults: (results) => results.map(renderResult).join('\n'),
  parseBlock(body, newId) {
    const payload = stripFence(body.trim());
    const parsed = tryParseJson(payload);
    if (parsed && Array.isArray(parsed.value)) return parsed.value.map((item) => callFromObject(item, newId));
    if (parsed && parsed.value !== null && typeof parsed.value === 'object')
      return [callFromObject(parsed.value, newId)];
    const call = parseCallSyntax(payload, newId);
    return [call ?? unreadableCall(payload, newId)];
  },
};

function describeTool(tool: ToolDefinition): string {
  return `#### Tool: ${tool.name}\n- **Description**: ${tool.description}\n- **Arguments (JSON Schema)**: ${JSON.stringify(tool.parameters)}\n`;
}

function renderCall(call: ToolCallPart): string {
  const args = call.rawArguments ?? JSON.stringify(call.arguments ?? {});
  return `<tool_code>\n{"name": ${JSON.stringify(call.name)}, "arguments": ${args}}\n</tool_code>`;
}

function renderResult(result: ToolResultPart): string {
  const error = result.isError ? '\n<is_error>true</is_error>' : '';
  return `<tool_result>\n<id>${result.toolCallId}</id>\n<name>${result.toolName}</name>${error}\n<content>\n${outputText(result.output)}\n</content>\n</tool_result>`;
}

function stripFence(text: string): string {
  const fenced = /^```[\w-]*\s*([\s\S]*?)\s*```$/.exec(text);
  return fenced ? fenced[1]! : text;
}
