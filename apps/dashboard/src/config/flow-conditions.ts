/** The operators of the branch condition form. */
export const CONDITION_OPS = ['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'filled'] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];

/** One condition as the form shows it: a slot, an operator and (except `filled`) a value. */
export interface Condition {
  slot: string;
  op: ConditionOp;
  value: string | number | boolean;
}

type Schema = Record<string, unknown>;

const BOUNDS: Record<'gt' | 'ge' | 'lt' | 'le', string> = {
  gt: 'exclusiveMinimum',
  ge: 'minimum',
  lt: 'exclusiveMaximum',
  le: 'maximum',
};

/**
 * The JSON Schema over the slots a condition stands for (what `branches[].when` holds).
 *
 * @example
 * conditionSchema({ slot: 'days', op: 'gt', value: 10 });
 * // { properties: { days: { exclusiveMinimum: 10 } }, required: ['days'] }
 */
export function conditionSchema(condition: Condition): Schema {
  const { slot, op, value } = condition;
  let test: Schema = {};
  if (op === 'eq') test = { const: value };
  else if (op === 'ne') test = { not: { const: value } };
  else if (op !== 'filled') test = { [BOUNDS[op]]: Number(value) };
  return { properties: { [slot]: test }, required: [slot] };
}

/** The form's reading of a `when` schema, or undefined when the form cannot show it (raw JSON then). */
export function parseCondition(when: unknown): Condition | undefined {
  const s = (when ?? {}) as Schema;
  const properties = s.properties as Record<string, Schema> | undefined;
  const required = s.required as unknown[] | undefined;
  if (!properties || Object.keys(s).some((k) => k !== 'properties' && k !== 'required')) return undefined;
  const names = Object.keys(properties);
  const slot = names[0];
  if (names.length !== 1 || !slot || required?.length !== 1 || required[0] !== slot) return undefined;
  const test = properties[slot] ?? {};
  const keys = Object.keys(test);
  if (keys.length === 0) return { slot, op: 'filled', value: '' };
  if (keys.length !== 1) return undefined;
  if ('const' in test) return isScalar(test.const) ? { slot, op: 'eq', value: test.const } : undefined;
  const not = test.not as Schema | undefined;
  if (not && Object.keys(not).length === 1 && isScalar(not.const)) return { slot, op: 'ne', value: not.const };
  for (const [op, keyword] of Object.entries(BOUNDS))
    if (typeof test[keyword] === 'number') return { slot, op: op as ConditionOp, value: test[keyword] as number };
  return undefined;
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}
