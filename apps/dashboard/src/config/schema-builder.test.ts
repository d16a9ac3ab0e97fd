import type { ParametersSchema } from '@agentry/contract';
import { describe, expect, it } from 'vitest';
import { blankParamRow, exampleArguments, parseTyped, rowsToSchema, schemaToRows } from './schema-builder.ts';

const orderSchema: ParametersSchema = {
  type: 'object',
  properties: {
    order_id: { type: 'string', description: 'Order number', pattern: '^NW-[0-9]{4,10}$' },
    include_items: { type: 'boolean', description: 'Also return the items', default: false },
    limit: { type: 'integer', minimum: 1, maximum: 20, default: 5 },
    status: { type: 'string', enum: ['open', 'shipped'] },
    either: { type: ['string', 'null'] },
  },
  required: ['order_id'],
  additionalProperties: false,
};

describe('parameter builder', () => {
  it('builds a JSON Schema from rows with types, required, enum and default', () => {
    const rows = [
      { ...blankParamRow(), name: 'email', required: true, description: 'Customer email' },
      { ...blankParamRow(), name: 'seats', type: 'integer' as const, enumValues: ['1', '2'], defaultText: '2' },
      { ...blankParamRow(), name: 'vip', type: 'boolean' as const, defaultText: 'false' },
      { ...blankParamRow(), name: '   ' },
    ];
    expect(rowsToSchema(rows)).toEqual({
      type: 'object',
      properties: {
        email: { type: 'string', description: 'Customer email' },
        seats: { type: 'integer', enum: [1, 2], default: 2 },
        vip: { type: 'boolean', default: false },
      },
      required: ['email'],
    });
  });

  it('round-trips a schema through rows without losing keywords it has no field for', () => {
    const rows = schemaToRows(orderSchema);
    expect(rows.map((r) => r.name)).toEqual(['order_id', 'include_items', 'limit', 'status', 'either']);
    expect(rows[0]).toMatchObject({ required: true, extra: { pattern: '^NW-[0-9]{4,10}$' } });
    expect(rows[4]).toMatchObject({ type: '', extra: { type: ['string', 'null'] } });
    expect(rowsToSchema(rows, orderSchema)).toEqual(orderSchema);
  });

  it('reads typed text by parameter type, keeping text that does not fit', () => {
    expect(parseTyped('3.5', 'number')).toBe(3.5);
    expect(parseTyped('abc', 'integer')).toBe('abc');
    expect(parseTyped('true', 'boolean')).toBe(true);
    expect(parseTyped('["a"]', 'array')).toEqual(['a']);
    expect(parseTyped('42', 'string')).toBe('42');
  });

  it('proposes example arguments from defaults, enums and types', () => {
    expect(exampleArguments(orderSchema)).toEqual({
      order_id: '',
      include_items: false,
      limit: 5,
      status: 'open',
      either: '',
    });
  });
});
