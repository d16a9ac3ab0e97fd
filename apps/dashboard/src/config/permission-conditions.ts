/**
 * Simple conditions over a tool call's arguments ("amount ≥ 1000", "email matches @acme\.com$")
 * and the JSON Schema they stand for: a permission rule's `when`, a test's argument expectation or
 * fixture condition. Only the shapes written here read back as conditions; any other schema is
 * shown as JSON (advanced), so nothing a developer wrote is lost or rewritten.
 */
import type { JsonSchemaNode } from './agent-config.ts';

export type ConditionOperator = '>' | '>=' | '<' | '<=' | '=' | '!=' | 'matches';

export const CONDITION_OPERATORS: readonly ConditionOperator[] = ['>', '>=', '<', '<=', '=', '!=', 'matches'];

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
 * Arguments the tool declares as text (`type: string`): their "= 1042" means the text "1042",
 * not the number, which such an argument never is.
 */
export type TextArguments = ReadonlySet<string>;

const NONE: TextArguments = new Set();

/**
 * The `when` for conditions that must all hold (rows without an argument are drafts and left
 * out); undefined when none remain. One argument tested twice with the same keyword needs
 * `allOf`, otherwise it is one `properties` + `required` schema.
 *
 * @example
 * conditionsToWhen([{ argument: 'amount', operator: '>=', value: '1000' }]);
 * // { properties: { amount: { minimum: 1000 } }, required: ['amount'] }
 * conditionsToWhen([{ argument: 'order_id', operator: '=', value: '1042' }], new Set(['order_id']));
 * // { properties: { order_id: { const: '1042' } }, required: ['order_id'] }
 */
export function conditionsToWhen(
  conditions: readonly SimpleCondition[],
  text: TextArguments = NONE,
): JsonSchemaNode | undefined {
  const complete = conditions.filter((c) => c.argument.trim() !== '');
  if (complete.length === 0) return undefined;
  const merged: Record<string, JsonSchemaNode> = {};
  for (const condition of complete) {
    const [keyword, value] = Object.entries(keywordFor(condition, text))[0]!;
    const property = merged[condition.argument] ?? {};
    if (keyword in property) return { allOf: complete.map((c) => single(c, text)) };
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
export function whenToConditions(when: unknown, text: TextArguments = NONE): SimpleCondition[] | undefined {
  if (when === undefined) return [];
  if (!isObject(when)) return undefined;
  if (Array.isArray(when.allOf) && Object.keys(when).length === 1) {
    const parts = when.allOf.map((part) => whenToConditions(part, text));
    if (parts.some((p) => p === undefined || p.length !== 1)) return undefined;
    return parts.flatMap((p) => p!);
  }
  return propertiesToConditions(when, text);
}

function propertiesToConditions(when: Record<string, unknown>, text: TextArguments): SimpleCondition[] | undefined {
  const keys = Object.keys(when).sort().join(',');
  if (keys !== 'properties,required' || !isObject(when.properties) || !Array.isArray(when.required)) return undefined;
  const names = Object.keys(when.properties);
  if (names.length === 0 || [...when.required].sort().join('\n') !== [...names].sort().join('\n')) return undefined;
  const out: SimpleCondition[] = [];
  for (const argument of names) {
    const property = when.properties[argument];
    if (!isObject(property) || Object.keys(property).length === 0) return undefined;
    for (const [keyword, value] of Object.entries(property)) {
      const condition = conditionFor(argument, keyword, value, text.has(argument));
      if (!condition) return undefined;
      out.push(condition);
    }
  }
  return out;
}

function conditionFor(argument: string, keyword: string, value: unknown, isText: boolean): SimpleCondition | undefined {
  const numeric = (Object.keys(numericKeyword) as Array<keyof typeof numericKeyword>).find(
    (op) => numericKeyword[op] === keyword,
  );
  if (numeric) return numericCondition(argument, numeric, value);
  if (keyword === 'const') return constCondition(argument, '=', value, isText);
  if (keyword === 'pattern') return typeof value === 'string' ? { argument, operator: 'matches', value } : undefined;
  if (keyword === 'not' && isObject(value) && Object.keys(value).join() === 'const') {
    return constCondition(argument, '!=', value.const, isText);
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

function constCondition(
  argument: string,
  operator: '=' | '!=',
  value: unknown,
  isText: boolean,
): SimpleCondition | undefined {
  // Text that would read back as a number or a boolean cannot round-trip through a text box,
  // unless the argument is text anyway; a number for a text argument would come back as text.
  if (typeof value === 'string' && !isText && typeof parseValue(value) !== 'string') return undefined;
  if (typeof value !== 'string' && isText) return undefined;
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
  return { argument, operator, value: String(value) };
}

function keywordFor(condition: SimpleCondition, text: TextArguments): JsonSchemaNode {
  const { operator, value } = condition;
  const typed = text.has(condition.argument) ? value : parseValue(value);
  if (operator === '=') return { const: typed };
  if (operator === '!=') return { not: { const: typed } };
  // An RE2 pattern the text must contain a match of (the API checks it is one).
  if (operator === 'matches') return { pattern: value };
  const number = Number(value);
  // Not a number: kept as typed, so the loader points at the value instead of it silently vanishing.
  return { [numericKeyword[operator]]: value.trim() !== '' && Number.isFinite(number) ? number : value };
}

function single(condition: SimpleCondition, text: TextArguments): JsonSchemaNode {
  return { properties: { [condition.argument]: keywordFor(condition, text) }, required: [condition.argument] };
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
