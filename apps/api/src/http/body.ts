import { errors } from '@agentry/errors';
import type { Context } from 'hono';
import type { z } from 'zod';

/** Largest JSON body the API accepts. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Parses and validates a JSON body. Invalid JSON → 400 `invalid_json`; a body that does not match
 * the schema → 422 `validation_failed` listing every field problem.
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
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw errors.validation(
      'The request body is not valid',
      parsed.error.issues.map((issue) => ({
        path: `/${issue.path.map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`,
        code: issue.code,
        message: issue.message,
      })),
    );
  }
  return parsed.data;
}
