import type { Message, ToolCallPart, ToolDefinition } from '@agentry/llm';

/**
 * The built-in tool a model calls to finish a run when `requireDoneTool` is set; its argument is
 * the final answer.
 *
 * @example
 * const tools = [...executor.definitions(), doneToolDefinition('done')];
 */
export function doneToolDefinition(name: string): ToolDefinition {
  return {
    name,
    description:
      'Call this exactly once when the task is complete. Its `answer` is the final reply shown to the user; nothing runs after it.',
    parameters: {
      type: 'object',
      properties: { answer: { type: 'string', description: 'The final answer to the user.' } },
      required: ['answer'],
      additionalProperties: false,
    },
  };
}

/** The answer of a done call, or undefined when its arguments are not `{ answer: string }`. */
export function doneAnswer(call: ToolCallPart): string | undefined {
  if (call.rawArguments !== undefined) return undefined;
  const args = call.arguments;
  if (args === null || typeof args !== 'object') return undefined;
  const answer = (args as Record<string, unknown>).answer;
  return typeof answer === 'string' ? answer : undefined;
}

/** The user-role reminder sent when the model answered without calling done. */
export function doneNudgeMessage(name: string): Message {
  return {
    role: 'user',
    content: [
      {
        type: 'text',
        text: `You answered without calling the \`${name}\` tool. If the task is complete, call \`${name}\` with your final answer; otherwise continue working with the tools.`,
      },
    ],
  };
}
