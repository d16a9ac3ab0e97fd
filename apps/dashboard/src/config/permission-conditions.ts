/**
 * The permissions editor's simple conditions ("amount ≥ 1000") and the JSON Schema a rule's
 * `when` holds. Only the shapes written here read back as conditions; any other `when` is shown
 * as JSON (advanced), so nothing a developer wrote is lost or rewritten.
 */
import type { JsonSchemaNode } from './agent-config.ts';

export type ConditionOperator = '>' | '>=' | '<' | '<=' | '=' | '!=';

export const CONDITION_OPERATORS: readonly ConditionOperator[] = ['>', '>=', '<', '<=', '=', '!='];

/** One test of one argument; `value` as typed (numbers, true/false and text are told apart on save). */
export interface SimpleCondition {
  argument: string;
  operator: ConditionOperator;
  value: string;
}

const numericKeyword: Record<'>' | '>=' | '<' | '<=', string> = {
  '>': 'exclusiveMinimum',
  '>=': 'minimum',
  '<': 'exclusiveMaximum',
  '<=': 'maximum',
};

/**
 * The `when` for conditions that must all hold (rows without an argument are drafts and left
 * out); undefined when none remain. One argument tested twice with the same keyword needs
 * `allOf`, otherwise it is one `properties` + `required` schema.
 *
 * @example
 * conditionsToWhen([{ argument: 'amount', operator: '>=', value: '1000' }]);
 * // { properties: { amount: { minimum: 1000 } }, required: ['amount'] }
 */
export function conditionsToWhen(conditions: readonly SimpleCondition[]): JsonSchemaNode | undefined {
  const complete = conditions.filter((c) => c.argument.trim() !== '');
  if (complete.length === 0) return undefined;
  const merged: Record<string, JsonSchemaNode> = {};
  for (const condition of complete) {
    const [keyword, value] = Object.entries(keywordFor(condition))[0]!;
    const property = merged[condition.argument] ?? {};
    if (keyword in property) return { allOf: complete.map(single) };
    merged[condition.argument] = { ...property, [keyword]: value };
  }
  return { properties: merged, required: Object.keys(merged) };
}

/**
 * The conditions a `when` stands for, or undefined when it is more than conditions can say
 * (then the editor shows it as JSON).
 *
 * @example
 * whenToConditions({ properties: { amount: { minimum: 1000 } }, required: ['amount'] });
 * // [{ argument: 'amount', operator: '>=', value: '1000' }]
 */
export function whenToConditions(when: unknown): SimpleCondition[] | undefined {
  if (when === undefined) return [];
  if (!isObject(when)) return undefined;
  if (Array.isArray(when.allOf) && Object.keys(when).length === 1) {
    const parts = when.allOf.map((part) => whenToConditions(part));
    if (parts.some((p) => p === undefined || p.length !== 1)) return undefined;
    return parts.flatMap((p) => p!);
  }
  return propertiesToConditions(when);
}

function propertiesToConditions(when: Record<string, unknown>): SimpleCondition[] | undefined {
  const keys = Object.keys(when).sort().join(',');
  if (keys !== 'properties,required' || !isObject(when.properties) || !Array.isArray(when.required)) return undefined;
  const names = Object.keys(when.properties);
  if (names.length === 0 || [...when.required].sort().join('\n') !== [...names].sort().join('\n')) return undefined;
  const out: SimpleCondition[] = [];
  for (const argument of names) {
    const property = when.properties[argument];
    if (!isObject(property) || Object.keys(property).length === 0) return undefined;
    for (const [keyword, value] of Object.entries(property)) {
      const condition = conditionFor(argument, keyword, value);
      if (!condition) return undefined;
      out.push(condition);
    }
  }
  return out;
}

function conditionFor(argument: string, keyword: string, value: unknown): SimpleCondition | undefined {
  const numeric = (Object.keys(numericKeyword) as Array<keyof typeof numericKeyword>).find(
    (op) => numericKeyword[op] === keyword,
  );
  if (numeric) return numericCondition(argument, numeric, value);
  if (keyword === 'const') return constCondition(argument, '=', value);
  if (keyword === 'not' && isObject(value) && Object.keys(value).join() === 'const') {
    return constCondition(argument, '!=', value.const);
  }
  return undefined;
}

function numericCondition(
  argument: string,
  operator: keyof typeof numericKeyword,
  value: unknown,
): SimpleCondition | undefined {
  if (typeof value === 'number') return { argument, operator, value: String(value) };
  // A value still being typed (or mistyped) stays a row, with the loader's issue under it; text
  // that reads as a number would come back as one, so it is left to the JSON view.
  if (typeof value === 'string' && typeof parseValue(value) === 'string') return { argument, operator, value };
  return undefined;
}

function constCondition(argument: string, operator: '=' | '!=', value: unknown): SimpleCondition | undefined {
  // Text that would read back as a number or a boolean cannot round-trip through a text box.
  if (typeof value === 'string' && typeof parseValue(value) !== 'string') return undefined;
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
  return { argument, operator, value: String(value) };
}

function keywordFor(condition: SimpleCondition): JsonSchemaNode {
  const { operator, value } = condition;
  if (operator === '=') return { const: parseValue(value) };
  if (operator === '!=') return { not: { const: parseValue(value) } };
  const number = Number(value);
  // Not a number: kept as typed, so the loader points at the value instead of it silently vanishing.
  return { [numericKeyword[operator]]: value.trim() !== '' && Number.isFinite(number) ? number : value };
}

function single(condition: SimpleCondition): JsonSchemaNode {
  return { properties: { [condition.argument]: keywordFor(condition) }, required: [condition.argument] };
}

/** A typed value as JSON: numbers and true/false as such, anything else as text. */
export function parseValue(text: string): string | number | boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^-?\d+(\.\d+)?$/.test(text.trim())) return Number(text);
  return text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
