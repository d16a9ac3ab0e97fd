import type { FieldIssue } from '@agentry/errors';
import { parametersSchemaIssues } from './config-schema.ts';
import { parameterSchemaIssues } from './parameter-schema-checks.ts';
import { argumentsValidator } from './parameters-validator.ts';

/**
 * Checks a tool input schema that came from outside the config (an MCP server's `inputSchema`)
 * against exactly the limits of `tools[].parameters`: the keyword allow-list and sizes of the JSON
 * Schema, RE2-only patterns, local `$ref`s, `required` names that exist, and that ajv compiles it.
 * `$schema` (which MCP SDKs add) is dropped first: it selects a dialect we do not honour anyway.
 * Returns the schema to offer, or the issues with pointers under `at`.
 *
 * @example
 * const checked = externalParametersSchema(tool.inputSchema, '/mcp_servers/0/tools/search');
 * if (!checked.ok) console.warn(checked.issues);
 */
export function externalParametersSchema(
  schema: unknown,
  at: string,
): { ok: true; parameters: Record<string, unknown> } | { ok: false; issues: FieldIssue[] } {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    return { ok: false, issues: [{ path: at, code: 'wrong_type', message: 'the input schema must be an object' }] };
  }
  const { $schema: _dialect, ...parameters } = schema as Record<string, unknown>;
  const located = (issues: FieldIssue[]) => issues.map((issue) => ({ ...issue, path: `${at}${issue.path}` }));
  const shapeIssues = parametersSchemaIssues(parameters);
  if (shapeIssues.length > 0) return { ok: false, issues: located(shapeIssues) };
  const deeper = parameterSchemaIssues(parameters, at);
  if (deeper.length > 0) return { ok: false, issues: deeper };
  try {
    argumentsValidator(parameters);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, issues: [{ path: at, code: 'invalid_parameters_schema', message: detail }] };
  }
  return { ok: true, parameters };
}
