import type { ToolCallPart, ToolDefinition } from '@agentry/llm';
import type { ToolExecutionResult, ToolExecutor } from '../tool-executor.ts';

/** One tool of an in-memory executor. */
export interface InMemoryTool {
  description?: string;
  /** JSON Schema of the arguments; `required` and simple `type`s of properties are checked. */
  parameters?: Record<string, unknown>;
  /** The tool's work. A throw propagates, so the loop's own handling of throwing executors is exercised. */
  run(args: Record<string, unknown>, options: { signal?: AbortSignal }): unknown | Promise<unknown>;
}

export interface InMemoryToolExecutor extends ToolExecutor {
  /** Every call executed, in the order execution started. */
  readonly calls: ToolCallPart[];
}

/**
 * A `ToolExecutor` over plain functions, with a small argument check that reports
 * `invalid_arguments` like the HTTP executor does. For tests and benchmarks.
 *
 * @example
 * const tools = createInMemoryTools({
 *   add: { parameters: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }, run: ({ a }) => Number(a) + 1 },
 * });
 */
export function createInMemoryTools(tools: Record<string, InMemoryTool>): InMemoryToolExecutor {
  const calls: ToolCallPart[] = [];
  const definitions: ToolDefinition[] = Object.entries(tools).map(([name, tool]) => ({
    name,
    description: tool.description ?? name,
    parameters: tool.parameters ?? { type: 'object', properties: {} },
  }));
  return {
    calls,
    definitions: () => definitions,
    async execute(call, options): Promise<ToolExecutionResult> {
      const tool = tools[call.name];
      if (!tool) return errorResult('unknown_tool', `There is no tool named "${call.name}".`);
      const args = (call.arguments ?? {}) as Record<string, unknown>;
      const problems = checkArguments(args, tool.parameters);
      if (problems.length > 0) {
        return errorResult('invalid_arguments', `The arguments do not match the schema: ${problems.join('; ')}.`);
      }
      calls.push(call);
      const output = await tool.run(args, { signal: options?.signal });
      return { isError: false, output };
    },
  };
}

function errorResult(code: string, message: string): ToolExecutionResult {
  return { isError: true, errorCode: code, output: { error: code, message } };
}

function checkArguments(args: Record<string, unknown>, schema: Record<string, unknown> | undefined): string[] {
  if (!schema) return [];
  const problems: string[] = [];
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  for (const key of required) if (!(key in args)) problems.push(`"${key}" is required`);
  const properties = (schema.properties ?? {}) as Record<string, { type?: string }>;
  for (const [key, value] of Object.entries(args)) {
    const type = properties[key]?.type;
    if (type && !hasType(value, type)) problems.push(`"${key}" must be of type ${type}`);
  }
  return problems;
}

function hasType(value: unknown, type: string): boolean {
  if (type === 'integer') return Number.isInteger(value);
  if (type === 'array') return Array.isArray(value);
  if (type === 'object') return value !== null && typeof value === 'object' && !Array.isArray(value);
  return typeof value === type;
}
