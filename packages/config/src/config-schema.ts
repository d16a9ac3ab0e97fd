import { agentConfigSchema as schema } from '@agentry/contract';
import type { FieldIssue } from '@agentry/errors';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ajvIssues } from './ajv-issues.ts';
import { linearRegExpEngine } from './linear-regexp.ts';

/**
 * The JSON Schema of agent configs, from `@agentry/contract` (where the types are inferred from it;
 * configs/agent-config.schema.json is written from it).
 */
export const agentConfigSchema: Record<string, unknown> = schema;

// One instance, compiled once at start-up: the schema is ours, only the documents vary.
const ajv = new Ajv2020({
  allErrors: true,
  verbose: true,
  strict: true,
  allowUnionTypes: true,
  $data: false,
  code: { regExp: linearRegExpEngine },
});
// `x-message` carries a plain-language rule for the issue text; it does not validate anything.
ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });
const validateDocument = ajv.compile(schema);

/**
 * Validates a document against the agent config JSON Schema; all problems, none thrown.
 *
 * @example
 * schemaIssues({ basic_settings: {} }); // [{ path: '/basic_settings/name', code: 'missing_key', ... }]
 */
export function schemaIssues(document: unknown): FieldIssue[] {
  if (validateDocument(document)) return [];
  return ajvIssues(validateDocument.errors ?? []);
}

const validateParameters = ajv.getSchema(`${schema.$id}#/$defs/parameters`);

/**
 * Validates a tool's parameters schema alone against the same safe subset as `tools[].parameters`
 * (for schemas that come from elsewhere, such as an MCP server's input schemas). Paths are
 * relative to the schema.
 *
 * @example
 * parametersSchemaIssues({ type: 'object', properties: { q: { type: 'string', pattern: '(?=x)' } } });
 */
export function parametersSchemaIssues(parameters: unknown): FieldIssue[] {
  if (!validateParameters) throw new Error('the config schema has no $defs/parameters');
  if (validateParameters(parameters)) return [];
  return ajvIssues(validateParameters.errors ?? [], 'the input schema');
}

const validateSchemaNode = ajv.getSchema(`${schema.$id}#/$defs/schemaNode`);

/**
 * Validates a JSON Schema a tenant wrote outside a config (a test's argument expectation or
 * fixture condition) against the same safe subset as a permission rule's `when`; paths are
 * relative to the schema.
 *
 * @example
 * schemaNodeIssues({ type: 'object', properties: { amount: { minimum: 1000 } } }); // []
 */
export function schemaNodeIssues(node: unknown): FieldIssue[] {
  if (!validateSchemaNode) throw new Error('the config schema has no $defs/schemaNode');
  if (validateSchemaNode(node)) return [];
  return ajvIssues(validateSchemaNode.errors ?? [], 'the schema');
}
