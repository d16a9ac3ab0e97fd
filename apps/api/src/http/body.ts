import { errors } from '@agentry/errors';
import type { Context } from 'hono';
import type { z } from 'zod';

/** Largest JSON body the API accepts. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Parses and validates a JSON body. Invalid JSON → 400 `invalid_json`; a string (or key) holding a
 * NUL character, which Postgres cannot store, or a body that does not match the schema → 422
 * `validation_failed` listing every field problem.
 */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(type)) {
    throw errors.badRequest('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json');
  }
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw errors.invalidJson();
  }
  const nul = nulPaths(raw, '', []);
  if (nul.length > 0) {
    throw errors.validation(
      'The request body is not valid',
      nul.map((path) => ({
        path,
        code: 'nul_character',
        message: 'Contains a NUL character (\\u0000), which cannot be stored',
      })),
    );
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw errors.validation(
      'The request body is not valid',
      parsed.error.issues.map((issue) => ({
        path: `/${issue.path.map((p) => pointerToken(String(p))).join('/')}`,
        code: issue.code,
        message: issue.message,
      })),
    );
  }
  return parsed.data;
}

function pointerToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** JSON pointers of the strings and keys in `value` that hold a NUL character (at most 20). */
function nulPaths(value: unknown, at: string, found: string[]): string[] {
  if (found.length >= 20) return found;
  if (typeof value === 'string') {
    if (value.includes('\u0000')) found.push(at || '/');
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) nulPaths(item, `${at}/${index}`, found);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const path = `${at}/${pointerToken(key)}`;
      if (key.includes('\u0000')) found.push(path);
      else nulPaths(item, path, found);
    }
  }
  return found;
}
