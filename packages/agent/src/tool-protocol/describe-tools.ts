import type { ToolChoice, ToolDefinition } from '@agentry/llm';

/** The sentence that carries tool_choice and parallel_tool_calls to a model without native tools. */
export function choiceRule(choice: ToolChoice, parallel: boolean): string {
  const rules: string[] = [];
  if (choice === 'required') rules.push('You MUST call at least one tool in your next reply.');
  else if (typeof choice === 'object') rules.push(`You MUST call the tool \`${choice.name}\` in your next reply.`);
  else rules.push('Call a tool only when you need it; otherwise answer in plain text.');
  rules.push(parallel ? 'You may call several tools in one reply.' : 'Call at most one tool per reply.');
  rules.push('After a tool call, stop and wait: the results are sent back to you in the next message.');
  return rules.map((rule) => `- ${rule}`).join('\n');
}

/** The tools a named choice allows (all tools otherwise). */
export function offeredTools(tools: ToolDefinition[], choice: ToolChoice): ToolDefinition[] {
  return typeof choice === 'object' ? tools.filter((tool) => tool.name === choice.name) : tools;
}

/** A tool output as text for a prompt. */
export function outputText(output: unknown): string {
  return typeof output === 'string' ? output : (JSON.stringify(output) ?? 'null');
}
