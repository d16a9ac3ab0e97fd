/**
 * Names an import produces: tool names, argument names and secret names, each made to fit the
 * config's patterns (see `packages/contract/src/agent-config-schema.ts`) and unique where needed.
 */

/** `tools[].name`: `^[A-Za-z][A-Za-z0-9_-]{0,63}$`; no `__` (the MCP and skill name spaces use it). */
export const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** Top-level argument names: `^[A-Za-z_][A-Za-z0-9_]{0,63}$`. */
export const ARGUMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Secret names: `^[A-Za-z_][A-Za-z0-9_]{0,63}$`. */
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * Argument names a template cannot use as a plain `{{name}}`: the config's reserved names, the
 * template helpers (`{{lower}}` would call the helper) and Handlebars' literals (`{{true}}`).
 */
const RESERVED_ARGUMENTS = new Set([
  'context',
  'secrets',
  'constructor',
  'prototype',
  '__proto__',
  'lower',
  'upper',
  'trim',
  'default',
  'true',
  'false',
  'null',
  'undefined',
  'this',
]);

/** Splits camelCase and anything that is not a letter or digit into `_`-joined words. */
function words(text: string, allowed: RegExp): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(allowed, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/**
 * A tool name from an operation id (or a fallback such as `get /pets/{id}`): letters, digits, `_`
 * and `-`, starting with a letter, at most 64 characters, never `__`; unique within `taken`
 * (which it extends) by a `_2`, `_3`… suffix.
 *
 * @example
 * toolName('pets.list', new Set()); // 'pets_list'
 */
export function toolName(raw: string, taken: Set<string>, fallback = 'tool'): string {
  let base = words(raw, /[^A-Za-z0-9-]+/g).replace(/-{2,}/g, '-');
  if (base === '' || base === '-') base = fallback;
  if (!/^[A-Za-z]/.test(base)) base = `op_${base}`;
  return unique(base.slice(0, 64).replace(/[_-]+$/, ''), taken, 64);
}

/**
 * A top-level argument name (letters, digits, `_`; not a reserved or helper name), unique within
 * `taken` (which it extends).
 *
 * @example
 * argumentName('page[size]', new Set()); // 'page_size'
 */
export function argumentName(raw: string, taken: Set<string>): string {
  let base = words(raw, /[^A-Za-z0-9]+/g);
  if (base === '') base = 'value';
  if (/^[0-9]/.test(base)) base = `p_${base}`;
  if (RESERVED_ARGUMENTS.has(base.toLowerCase())) base = `${base}_value`;
  return unique(base.slice(0, 64), taken, 64);
}

/**
 * A secret name (`API_KEY` style), unique within `taken` (which it extends).
 *
 * @example
 * secretName('Swagger Petstore', 'api_key', new Set()); // 'SWAGGER_PETSTORE_API_KEY'
 */
export function secretName(prefix: string, raw: string, taken: Set<string>): string {
  const head = words(prefix, /[^A-Za-z0-9]+/g)
    .toUpperCase()
    .slice(0, 24);
  const tail = words(raw, /[^A-Za-z0-9]+/g).toUpperCase() || 'TOKEN';
  let base = head === '' ? tail : `${head}_${tail}`;
  if (/^[0-9]/.test(base)) base = `S_${base}`;
  return unique(base.slice(0, 64).replace(/_+$/, ''), taken, 64);
}

function unique(base: string, taken: Set<string>, max: number): string {
  let name = base;
  for (let n = 2; taken.has(name.toLowerCase()); n++) {
    const suffix = `_${n}`;
    name = `${base.slice(0, max - suffix.length)}${suffix}`;
  }
  taken.add(name.toLowerCase());
  return name;
}
