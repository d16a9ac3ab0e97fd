import type { ParametersSchema } from '@agentry/contract';
import type { JsonSchemaNode } from './agent-config.ts';

export const PARAM_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'] as const;
export type ParamType = (typeof PARAM_TYPES)[number];

/** One row of the parameter builder. `extra` keeps schema keywords the builder has no field for. */
export interface ParamRow {
  name: string;
  type: ParamType | '';
  required: boolean;
  description: string;
  enumValues: string[];
  defaultText: string;
  extra: Record<string, unknown>;
}

export function blankParamRow(): ParamRow {
  return { name: '', type: 'string', required: false, description: '', enumValues: [], defaultText: '', extra: {} };
}

const isParamType = (value: unknown): value is ParamType => PARAM_TYPES.includes(value as ParamType);

/** Renders a schema value as the text a user types for it. */
function valueText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Reads typed text back as the value of a parameter of `type`; text that does not fit stays a string. */
export function parseTyped(text: string, type: ParamType | ''): unknown {
  const trimmed = text.trim();
  if (type === 'number' || type === 'integer') {
    const n = Number(trimmed);
    return trimmed !== '' && Number.isFinite(n) ? n : text;
  }
  if (type === 'boolean') return trimmed === 'true' ? true : trimmed === 'false' ? false : text;
  if (type === 'array' || type === 'object' || type === '') {
    try {
      return JSON.parse(trimmed);
    } catch {
      return text;
    }
  }
  return text;
}

export function schemaToRows(schema: ParametersSchema | undefined): ParamRow[] {
  const required = new Set(schema?.required ?? []);
  // Read loosely, as the builder's nodes: the loader is the judge of what a property holds.
  const properties = (schema?.properties ?? {}) as Record<string, JsonSchemaNode>;
  return Object.entries(properties).map(([name, node]) => {
    const { type, description, enum: enumList, default: def, ...extra } = node ?? {};
    const row: ParamRow = {
      name,
      type: isParamType(type) ? type : '',
      required: required.has(name),
      description: description ?? '',
      enumValues: Array.isArray(enumList) ? enumList.map(valueText) : [],
      defaultText: def === undefined ? '' : valueText(def),
      extra,
    };
    // A type the builder cannot show (a list of types, or none) travels untouched.
    if (!isParamType(type) && type !== undefined) row.extra = { type, ...extra };
    return row;
  });
}

export function rowToNode(row: ParamRow): JsonSchemaNode {
  const node: JsonSchemaNode = {};
  if (row.type) node.type = row.type;
  Object.assign(node, row.extra);
  if (row.description) node.description = row.description;
  if (row.enumValues.length > 0) node.enum = row.enumValues.map((v) => parseTyped(v, row.type));
  if (row.defaultText !== '') node.default = parseTyped(row.defaultText, row.type);
  return node;
}

/**
 * The parameters JSON Schema for `rows`, keeping the keywords of `base` the builder does not edit
 * ($defs, additionalProperties, description). Rows without a name are drafts and left out.
 */
export function rowsToSchema(rows: ParamRow[], base?: ParametersSchema): ParametersSchema {
  const { properties: _p, required: _r, ...rest } = base ?? { type: 'object' };
  const properties: Record<string, JsonSchemaNode> = {};
  const required: string[] = [];
  for (const row of rows) {
    const name = row.name.trim();
    if (!name) continue;
    properties[name] = rowToNode(row);
    if (row.required && !required.includes(name)) required.push(name);
  }
  const schema: ParametersSchema = { ...rest, type: 'object', properties };
  if (required.length > 0) schema.required = required;
  return schema;
}

/** Example arguments for the tool tester: defaults, then the first enum value, then a typed blank. */
export function exampleArguments(schema: ParametersSchema | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, node] of Object.entries(schema?.properties ?? {})) {
    if (node?.default !== undefined) out[name] = node.default;
    else if (Array.isArray(node?.enum) && node.enum.length > 0) out[name] = node.enum[0];
    else if (node?.type === 'boolean') out[name] = false;
    else if (node?.type === 'number' || node?.type === 'integer') out[name] = 0;
    else if (node?.type === 'array') out[name] = [];
    else if (node?.type === 'object') out[name] = {};
    else out[name] = '';
  }
  return out;
}
