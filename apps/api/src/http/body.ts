import { errors, type FieldIssue } from '@agentry/errors';
import type { Context } from 'hono';
import type { z } from 'zod';

/** Largest JSON body the API accepts. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * How deeply a JSON body may nest (`{}` and `[]` each count one level). Generous: an agent config
 * nests at most 24 levels (`maxConfigDepth` in @agentry/config) and its upload wraps it once more;
 * client tool outputs and context values are shallower still. A bound at all keeps every recursive
 * walk after the reader (zod, ajv, canonical JSON, JSON.stringify into Postgres) off the stack limit.
 */
export const MAX_JSON_DEPTH = 64;

/** At most this many string or number problems are listed in one answer. */
const MAX_ISSUES = 20;

const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface ReadJsonOptions {
  /** A larger bound than {@link MAX_BODY_BYTES} for the one route that needs it (the tool import). */
  maxBytes?: number;
  /** The error for a body over `maxBytes` (default 413 `payload_too_large`). */
  tooLarge?: (limitBytes: number) => Error;
}

/**
 * The one way a route reads a JSON body: checks it with {@link readJsonValue}, then validates it
 * with `schema` (422 `validation_failed` listing every field problem as JSON pointers).
 *
 * @example
 * const body = await readJson(c, z.object({ name: z.string() }));
 */
export async function readJson<S extends z.ZodType>(
  c: Context,
  schema: S,
  options: ReadJsonOptions = {},
): Promise<z.infer<S>> {
  const raw = await readJsonValue(c, options);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw errors.validation(
      'The request body is not valid',
      parsed.error.issues.map((issue) => ({
        path: pointer(issue.path.map((p) => String(p))),
        code: issue.code,
        message: issue.message,
      })),
    );
  }
  return parsed.data;
}

/**
 * Reads a JSON body and enforces the input rules before anything walks it:
 * - `Content-Type` must be JSON (`application/json` or `application/*+json`) → else 400 `unsupported_media_type`;
 * - at most {@link MAX_BODY_BYTES} → else 413 `payload_too_large` (also enforced by the /v1 body limit);
 * - valid UTF-8 and valid JSON → else 400 `invalid_json`;
 * - nesting at most {@link MAX_JSON_DEPTH} levels, measured on the text before parsing → else 400 `json_too_deep`;
 * - no string or key with a NUL character (`nul_character`) or a lone UTF-16 surrogate
 *   (`lone_surrogate`, e.g. `"\ud800"`), which Postgres cannot store, and no number outside the
 *   double range (`non_finite_number`, e.g. `1e400`) → else 422 `validation_failed` naming each place.
 *
 * @example
 * const value = await readJsonValue(c); // unknown, but safe to walk, hash and store
 */
export async function readJsonValue(c: Context, options: ReadJsonOptions = {}): Promise<unknown> {
  const maxBytes = options.maxBytes ?? MAX_BODY_BYTES;
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(type)) {
    throw errors.badRequest('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json');
  }
  const bytes = await c.req.arrayBuffer();
  if (bytes.byteLength > maxBytes) throw (options.tooLarge ?? errors.payloadTooLarge)(maxBytes);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw errors.invalidJson('The request body is not valid UTF-8');
  }
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
    throw errors.badRequest(
      'json_too_deep',
      `The request body nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`,
      { max_depth: MAX_JSON_DEPTH },
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw errors.invalidJson();
  }
  const issues = unstorableValues(raw);
  if (issues.length > 0) throw errors.validation('The request body is not valid', issues);
  return raw;
}

/**
 * Whether JSON text nests objects and arrays deeper than `max`, in one pass over the text (no
 * recursion, so any depth is safe to measure). Brackets inside strings do not count; text that is
 * not JSON is left for `JSON.parse` to refuse.
 *
 * @example
 * jsonDepthExceeds('{"a":[1]}', 1); // true
 * jsonDepthExceeds('{"a":"[[["}', 1); // false
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // a backslash: the next character is escaped, whatever it is
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) {
      inString = true;
    } else if (ch === 0x7b || ch === 0x5b) {
      if (++depth > max) return true;
    } else if (ch === 0x7d || ch === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** What is wrong with a string (key or value) for storage, or undefined. */
function stringProblem(value: string): Pick<FieldIssue, 'code' | 'message'> | undefined {
  if (value.includes('\u0000')) {
    return { code: 'nul_character', message: 'Contains a NUL character (\\u0000), which cannot be stored' };
  }
  if (!value.isWellFormed()) {
    return {
      code: 'lone_surrogate',
      message: 'Contains a lone UTF-16 surrogate (e.g. \\ud800 without its pair), which is not valid Unicode',
    };
  }
  return undefined;
}

/**
 * Strings and keys holding a NUL or a lone surrogate, and numbers that overflowed to ±Infinity,
 * as field issues (at most {@link MAX_ISSUES}). Iterative, in document order.
 */
function unstorableValues(root: unknown): FieldIssue[] {
  const found: FieldIssue[] = [];
  // `key`: the object key this value is under (checked when the value is reached, so in order).
  const stack: Array<{ value: unknown; path: string[]; key?: string }> = [{ value: root, path: [] }];
  while (stack.length > 0 && found.length < MAX_ISSUES) {
    const { value, path, key } = stack.pop()!;
    const keyProblem = key === undefined ? undefined : stringProblem(key);
    if (keyProblem) {
      found.push({ path: pointer(path), ...keyProblem });
    } else if (typeof value === 'string') {
      const problem = stringProblem(value);
      if (problem) found.push({ path: pointer(path), ...problem });
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) {
        found.push({
          path: pointer(path),
          code: 'non_finite_number',
          message: 'Is a number too large for a 64-bit float (it would be Infinity)',
        });
      }
    } else if (Array.isArray(value)) {
      // Pushed last to first, so the first child is looked at next (issues come in document order).
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: [...path, String(i)] });
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [name, item] = entries[i]!;
        stack.push({ value: item, path: [...path, name], key: name });
      }
    }
  }
  return found;
}

/** A JSON pointer (RFC 6901) to `path`; a lone surrogate in a key is shown as U+FFFD so the answer is valid Unicode. */
function pointer(path: string[]): string {
  if (path.length === 0) return '/';
  return path.map((key) => `/${key.toWellFormed().replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}
