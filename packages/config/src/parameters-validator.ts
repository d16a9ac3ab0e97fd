import type { FieldIssue } from '@agentry/errors';
import type { AnySchema, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { LRUCache } from 'lru-cache';
import { ajvIssues } from './ajv-issues.ts';
import { contentHash } from './canonical-hash.ts';
import { linearRegExpEngine } from './linear-regexp.ts';

/**
 * Tenant schemas were already checked against our keyword allow-list (schemaNode in the config
 * schema), so this instance only needs safe runtime settings: no $data, no remote refs, RE2 patterns.
 */
const ajv = new Ajv2020({
  allErrors: true,
  strict: false,
  $data: false,
  useDefaults: true,
  addUsedSchema: false,
  code: { regExp: linearRegExpEngine },
});
addFormats.default(ajv, ['date', 'time', 'date-time', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uri', 'uuid']);

// ajv keeps every compiled schema in an internal map keyed by object identity; we key by content
// hash instead and evict from ajv on LRU eviction, so re-uploading a config never grows the heap.
const validators = new LRUCache<string, { validate: ValidateFunction; schema: AnySchema }>({
  max: 2000,
  dispose: (entry) => {
    ajv.removeSchema(entry.schema);
  },
});

export type ArgumentsValidator = (args: unknown) => { ok: true; value: unknown } | { ok: false; issues: FieldIssue[] };

/**
 * Compiles (or reuses, by content) a validator for a tool's `parameters`. Validation works on a copy,
 * so defaults are filled without touching the caller's object. Throws when ajv cannot compile.
 *
 * @example
 * const check = argumentsValidator({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] });
 * check({ q: 'x' }); // { ok: true, value: { q: 'x' } }
 */
export function argumentsValidator(parameters: Record<string, unknown>): ArgumentsValidator {
  const key = contentHash(parameters);
  let entry = validators.get(key);
  if (!entry) {
    const schema = structuredClone(parameters);
    entry = { validate: ajv.compile(schema), schema };
    validators.set(key, entry);
  }
  const { validate } = entry;
  return (args) => {
    const value = structuredClone(args ?? {});
    if (validate(value)) return { ok: true, value };
    return { ok: false, issues: ajvIssues(validate.errors ?? [], 'the tool call') };
  };
}
