import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonSchemaArbitrary } from './json-schema-arbitrary.ts';

describe('jsonSchemaArbitrary', () => {
  it('generates values that match the schema (refs, required keys, enums, formats, bounds, alternatives)', () => {
    const root = {
      components: {
        schemas: {
          Item: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] },
        },
      },
    };
    const schema = {
      type: 'object',
      properties: {
        kind: { enum: ['secret', 'publishable'] },
        name: { type: 'string', minLength: 1, maxLength: 5 },
        count: { type: 'integer', minimum: 1, maximum: 3 },
        items: { type: 'array', items: { $ref: '#/components/schemas/Item' }, maxItems: 2 },
        either: { anyOf: [{ type: 'boolean' }, { type: 'null' }] },
        code: { type: 'string', pattern: '^[A-Z_]{1,8}$' },
      },
      required: ['kind', 'items'],
    };
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'doc', ...root });
    const validate = ajv.compile(
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components', '"doc#/components')) as object,
    );
    for (const value of fc.sample(jsonSchemaArbitrary(schema, root), 200)) {
      expect(validate(value), JSON.stringify([value, validate.errors])).toBe(true);
    }
  });
});
