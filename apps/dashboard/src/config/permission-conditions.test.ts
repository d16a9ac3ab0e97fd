import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONDITION_OPERATORS,
  conditionsToWhen,
  parseValue,
  type SimpleCondition,
  whenToConditions,
} from './permission-conditions.ts';

describe('permission conditions ⇄ when', () => {
  it('writes the JSON Schema a person would', () => {
    expect(conditionsToWhen([{ argument: 'amount', operator: '>=', value: '1000' }])).toEqual({
      properties: { amount: { minimum: 1000 } },
      required: ['amount'],
    });
    expect(
      conditionsToWhen([
        { argument: 'amount', operator: '>', value: '10' },
        { argument: 'amount', operator: '<=', value: '99.5' },
        { argument: 'currency', operator: '!=', value: 'EUR' },
        { argument: '', operator: '=', value: 'draft row' },
      ]),
    ).toEqual({
      properties: { amount: { exclusiveMinimum: 10, maximum: 99.5 }, currency: { not: { const: 'EUR' } } },
      required: ['amount', 'currency'],
    });
    expect(
      conditionsToWhen([
        { argument: 'a', operator: '=', value: '1' },
        { argument: 'a', operator: '=', value: '2' },
      ]),
    ).toEqual({
      allOf: [
        { properties: { a: { const: 1 } }, required: ['a'] },
        { properties: { a: { const: 2 } }, required: ['a'] },
      ],
    });
    expect(conditionsToWhen([{ argument: 'email', operator: 'matches', value: '@acme\\.com$' }])).toEqual({
      properties: { email: { pattern: '@acme\\.com$' } },
      required: ['email'],
    });
    expect(conditionsToWhen([])).toBeUndefined();
  });

  it('reads back what it wrote; anything else is advanced (JSON)', () => {
    expect(whenToConditions(undefined)).toEqual([]);
    expect(whenToConditions({ properties: { amount: { minimum: 1000 } }, required: ['amount'] })).toEqual([
      { argument: 'amount', operator: '>=', value: '1000' },
    ]);
    expect(whenToConditions({ properties: { amount: { minimum: 1000 } } })).toBeUndefined();
    expect(whenToConditions({ properties: { s: { pattern: '^A-\\d+$' } }, required: ['s'] })).toEqual([
      { argument: 's', operator: 'matches', value: '^A-\\d+$' },
    ]);
    expect(whenToConditions({ properties: { s: { minLength: 2 } }, required: ['s'] })).toBeUndefined();
    expect(whenToConditions({ properties: { s: { const: '12' } }, required: ['s'] })).toBeUndefined();
    // A row whose number is still empty stays a row (the loader flags it), so typing never jumps to JSON.
    const draft = conditionsToWhen([{ argument: 'amount', operator: '>=', value: '' }]);
    expect(draft).toEqual({ properties: { amount: { minimum: '' } }, required: ['amount'] });
    expect(whenToConditions(draft)).toEqual([{ argument: 'amount', operator: '>=', value: '' }]);
    expect(whenToConditions({ properties: { amount: { minimum: '5' } }, required: ['amount'] })).toBeUndefined();
  });

  it('keeps "= 1042" as text for an argument the tool declares as text', () => {
    const text = new Set(['order_id']);
    const rows: SimpleCondition[] = [
      { argument: 'order_id', operator: '=', value: '1042' },
      { argument: 'amount', operator: '=', value: '59' },
    ];
    const when = conditionsToWhen(rows, text);
    expect(when).toEqual({
      properties: { order_id: { const: '1042' }, amount: { const: 59 } },
      required: ['order_id', 'amount'],
    });
    expect(whenToConditions(when, text)).toEqual(rows);
    // Without knowing, "1042" as text cannot be a row (it would come back as a number).
    expect(whenToConditions(when)).toBeUndefined();
    expect(
      whenToConditions({ properties: { order_id: { const: 1042 } }, required: ['order_id'] }, text),
    ).toBeUndefined();
  });

  it('round-trips generated conditions', () => {
    const conditionArb = fc.record({
      argument: fc.constantFrom('amount', 'count', 'kind'),
      operator: fc.constantFrom(...CONDITION_OPERATORS),
      value: fc.oneof(fc.integer({ min: -50, max: 50 }).map(String), fc.constantFrom('EUR', 'true', 'x y')),
    });
    fc.assert(
      fc.property(fc.array(conditionArb, { minLength: 1, maxLength: 4 }), (rows) => {
        // Numeric comparisons are only offered with numbers.
        const conditions = rows.filter(
          (c) => ['=', '!=', 'matches'].includes(c.operator) || typeof parseValue(c.value) === 'number',
        );
        fc.pre(conditions.length > 0);
        const when = conditionsToWhen(conditions);
        const back = whenToConditions(when);
        expect(back && sortConditions(back)).toEqual(sortConditions(conditions));
      }),
      { numRuns: 300 },
    );
  });
});

function sortConditions(conditions: SimpleCondition[]): string[] {
  return conditions.map((c) => `${c.argument} ${c.operator} ${c.value}`).sort();
}
