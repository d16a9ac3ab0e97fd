import { RE2JS } from 're2js';

/**
 * Turns an OpenAPI (3.1 after upgrading) schema into the safe JSON Schema subset that
 * `tools[].parameters` accepts, and says what it had to leave out. The input is a dereferenced
 * schema: a `$ref` still in it is circular (the parser leaves those alone) and becomes "any value".
 */

/** How deep schemas may nest under a parameter: the config's 24 levels less the tool's own. */
export const MAX_SCHEMA_DEPTH = 6;
/** Schema nodes per tool: a document cannot make one tool (or the walk) explode. */
export const MAX_SCHEMA_NODES = 2000;
/** JSON characters a value (`default`, `const`, one example) may take; `enum` takes ten times that. */
const MAX_VALUE_JSON = 2000;

const FORMATS = new Set(['date', 'time', 'date-time', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uri', 'uuid']);
/** Formats that only restate the type: dropped without a note. */
const QUIET_FORMATS = new Set(['int32', 'int64', 'float', 'double', 'number', 'integer', 'string']);
const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);
/** Keywords that only document (or only matter in responses): dropped without a note. */
const QUIET = new Set([
  'example',
  'nullable',
  'readOnly',
  'writeOnly',
  'deprecated',
  'xml',
  'externalDocs',
  'discriminator',
  '$schema',
  '$id',
  '$comment',
  'contentMediaType',
  'contentEncoding',
]);
const FORBIDDEN_PROPERTY_NAMES = new Set(['constructor', 'prototype', '__proto__']);

export type Schema = Record<string, unknown>;

/** What was left out of one tool's schemas, as JSON-pointer-ish paths per keyword. */
export class DropLog {
  readonly dropped = new Map<string, Set<string>>();
  nodes = 0;
  add(keyword: string, where: string): void {
    let at = this.dropped.get(keyword);
    if (!at) {
      at = new Set();
      this.dropped.set(keyword, at);
    }
    if (at.size < 5) at.add(where || '/');
  }
  /** One sentence listing the dropped keywords and (a few of) their places, or undefined. */
  message(): string | undefined {
    if (this.dropped.size === 0) return undefined;
    const parts = [...this.dropped].map(([k, at]) => `${k} (at ${[...at].join(', ')})`);
    return `Left out of the parameters (not in the allowed JSON Schema subset): ${parts.join('; ')}`;
  }
}

function isObject(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function text(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const t = value.trim();
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}

/**
 * Converts one schema node. `where` is a readable path for notes; `depth` counts schema levels.
 *
 * @example
 * convertSchema({ type: 'integer', format: 'int64', nullable: true }, '/id', new DropLog()); // { type: ['integer', 'null'] }
 */
export function convertSchema(input: unknown, where: string, log: DropLog, depth = 0): Schema {
  if (!isObject(input)) return {};
  if (depth >= MAX_SCHEMA_DEPTH) {
    log.add('nesting deeper than 6 levels (accepted as any value)', where);
    return {};
  }
  if (typeof input.$ref === 'string') {
    log.add('circular $ref (accepted as any value)', where);
    return {};
  }
  if (++log.nodes > MAX_SCHEMA_NODES) {
    log.add(`schemas past ${MAX_SCHEMA_NODES} nodes (accepted as any value)`, where);
    return {};
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(input)) {
    if (key.startsWith('x-') || QUIET.has(key)) continue;
    switch (key) {
      case 'type': {
        const types = (Array.isArray(value) ? value : [value]).filter(
          (t): t is string => typeof t === 'string' && JSON_TYPES.has(t),
        );
        const unique = [...new Set(types)];
        if (unique.length === 1) out.type = unique[0];
        else if (unique.length > 1) out.type = unique;
        break;
      }
      case 'description': {
        const d = text(value, 1024);
        if (d) out.description = d;
        break;
      }
      case 'title': {
        const t = text(value, 200);
        if (t) out.title = t;
        break;
      }
      case 'enum':
        if (Array.isArray(value) && value.length >= 1 && value.length <= 200 && fits(value, 10 * MAX_VALUE_JSON))
          out.enum = value;
        else log.add('enum (too long)', where);
        break;
      case 'const':
      case 'default':
        if (value !== undefined && fits(value, MAX_VALUE_JSON)) out[key] = value;
        else log.add(`${key} (too large)`, where);
        break;
      case 'examples':
        if (Array.isArray(value)) {
          const small = value.filter((v) => fits(v, MAX_VALUE_JSON)).slice(0, 10);
          if (small.length > 0) out.examples = small;
        }
        break;
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        if (typeof value === 'number') out[key] = value;
        else if (value === true) {
          // OpenAPI 3.0: a flag on minimum/maximum
          const bound = input[key === 'exclusiveMinimum' ? 'minimum' : 'maximum'];
          if (typeof bound === 'number') out[key] = bound;
        }
        break;
      case 'minimum':
      case 'maximum':
        if (typeof value === 'number' && input[key === 'minimum' ? 'exclusiveMinimum' : 'exclusiveMaximum'] !== true)
          out[key] = value;
        break;
      case 'multipleOf':
        if (typeof value === 'number' && value > 0) out.multipleOf = value;
        else log.add(key, where);
        break;
      case 'minLength':
      case 'maxLength':
      case 'minItems':
      case 'maxItems':
        if (Number.isInteger(value) && (value as number) >= 0) out[key] = value;
        else log.add(key, where);
        break;
      case 'uniqueItems':
        if (typeof value === 'boolean') out.uniqueItems = value;
        break;
      case 'pattern':
        if (typeof value === 'string' && value.length <= 500 && runsOnRe2(value)) out.pattern = value;
        else log.add('pattern (not RE2 syntax)', where);
        break;
      case 'format':
        if (typeof value === 'string' && FORMATS.has(value)) out.format = value;
        else if (!(typeof value === 'string' && QUIET_FORMATS.has(value))) log.add(`format ${String(value)}`, where);
        break;
      case 'items':
        if (isObject(value)) out.items = convertSchema(value, `${where}/items`, log, depth + 1);
        else log.add('items (tuple form)', where);
        break;
      case 'properties': {
        if (!isObject(value)) break;
        const props: Schema = {};
        let count = 0;
        for (const [name, sub] of Object.entries(value)) {
          if (FORBIDDEN_PROPERTY_NAMES.has(name)) {
            log.add(`property ${name}`, where);
            continue;
          }
          if (isObject(sub) && sub.readOnly === true) continue; // only ever in responses
          if (count >= 64) {
            log.add('properties beyond the 64th', where);
            break;
          }
          props[name] = convertSchema(sub, `${where}/${name}`, log, depth + 1);
          count++;
        }
        out.properties = props;
        break;
      }
      case 'required':
        if (Array.isArray(value)) {
          const names = value.filter((n): n is string => typeof n === 'string' && n.length <= 64);
          if (names.length > 0) out.required = [...new Set(names)].slice(0, 64);
        }
        break;
      case 'additionalProperties':
        if (typeof value === 'boolean') out.additionalProperties = value;
        else log.add('additionalProperties (a schema; any extra property is allowed)', where);
        break;
      case 'anyOf':
      case 'oneOf':
      case 'allOf': {
        if (!Array.isArray(value) || value.length === 0) break;
        if (value.length > 10) {
          log.add(`${key} with more than 10 choices`, where);
          break;
        }
        out[key] = value.map((sub, i) => convertSchema(sub, `${where}/${key}/${i}`, log, depth + 1));
        break;
      }
      default:
        log.add(key, where);
    }
  }
  if (input.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  if (out.examples === undefined && input.example !== undefined && fits(input.example, MAX_VALUE_JSON))
    out.examples = [input.example];
  if (Array.isArray(out.required) && isObject(out.properties)) {
    const props = out.properties;
    const kept = (out.required as string[]).filter((n) => Object.hasOwn(props, n));
    if (kept.length > 0) out.required = kept;
    else delete out.required;
  } else if (out.required !== undefined && out.properties === undefined) {
    delete out.required;
  }
  return out;
}

/** Whether a value is JSON of at most `max` characters (a value the dereferencer made circular is not). */
function fits(value: unknown, max: number): boolean {
  try {
    const json = JSON.stringify(value);
    return json !== undefined && json.length <= max;
  } catch {
    return false;
  }
}

function runsOnRe2(pattern: string): boolean {
  try {
    RE2JS.compile(pattern);
    return true;
  } catch {
    return false;
  }
}
