import { customType } from 'drizzle-orm/pg-core';

/**
 * Replaces every `\u0000` escape in JSON text with `\ufffd` (the replacement character). Postgres
 * cannot store NUL in a jsonb (or text) value and refuses the whole statement, so a tool answer or
 * message carrying one would otherwise fail the write it rides with. An escaped backslash followed
 * by `u0000` (the six characters, not NUL) is left alone.
 *
 * @example
 * withoutNul(JSON.stringify({ note: 'a\u0000b' })); // '{"note":"a\\ufffdb"}'
 */
export function withoutNul(json: string): string {
  if (!json.includes('\\u0000')) return json;
  return json.replace(/(\\+)u0000/g, (match, slashes: string) =>
    slashes.length % 2 === 1 ? `${slashes}ufffd` : match,
  );
}

/**
 * Replaces every lone-surrogate escape (`\ud800` without its pair) in JSON text with `\ufffd`.
 * `JSON.stringify` writes a lone surrogate as such an escape (a paired one stays a character), and
 * Postgres refuses it in a jsonb value, failing the whole statement: a tool answer or model output
 * carrying one would fail its run. An escaped backslash followed by the text `ud800` is left alone.
 *
 * @example
 * withoutLoneSurrogates(JSON.stringify({ note: 'a\ud800b' })); // '{"note":"a\\ufffdb"}'
 */
export function withoutLoneSurrogates(json: string): string {
  if (!json.includes('\\ud')) return json;
  return json.replace(/(\\+)ud[89a-f][0-9a-f]{2}/g, (match, slashes: string) =>
    slashes.length % 2 === 1 ? `${slashes}ufffd` : match,
  );
}

/**
 * drizzle's `jsonb` column, except that NUL characters and lone surrogates in strings are stored
 * as U+FFFD instead of failing the statement (see {@link withoutNul}, {@link withoutLoneSurrogates}).
 *
 * @example
 * const messages = pgTable('messages', { content: jsonb('content').$type<ContentPart[]>().notNull() });
 */
export const jsonb = customType<{ data: unknown; driverData: string }>({
  dataType: () => 'jsonb',
  toDriver: (value) => withoutLoneSurrogates(withoutNul(JSON.stringify(value))),
  // Drivers hand jsonb over parsed (postgres-js, PGlite); a string is parsed as drizzle's own jsonb does.
  fromDriver: (value) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  },
});

/**
 * Like {@link jsonb} but a `json` column: Postgres keeps the text as written, so objects come back
 * with their keys in the order they were stored (a `jsonb` value comes back sorted by key length,
 * then bytes). For documents a person wrote whose order means something, such as an agent config's
 * parameters and headers. NUL characters and lone surrogates are replaced as in {@link jsonb}, so
 * that `->` and `->>` on the value behave the same as on the `jsonb` it replaces.
 *
 * @example
 * const agentVersions = pgTable('agent_versions', { config: orderedJson('config').notNull() });
 */
export const orderedJson = customType<{ data: unknown; driverData: string }>({
  dataType: () => 'json',
  toDriver: (value) => withoutLoneSurrogates(withoutNul(JSON.stringify(value))),
  // postgres-js and PGlite parse json themselves (JSON.parse keeps the stored key order).
  fromDriver: (value) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  },
});
