import { isId } from '@agentry/db';
import { errors } from '@agentry/errors';
import type { Context } from 'hono';

export interface Page {
  limit: number;
  before?: string;
}

/** Reads `limit` (1–100, default 20) and `cursor` (an id from a previous page's `next_cursor`). */
export function readPage(c: Context): Page {
  const rawLimit = c.req.query('limit');
  const limit = rawLimit === undefined ? 20 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw errors.badRequest('invalid_query', '`limit` must be a whole number from 1 to 100', { parameter: 'limit' });
  }
  const cursor = c.req.query('cursor');
  if (cursor !== undefined && !isId(cursor)) {
    throw errors.badRequest('invalid_query', '`cursor` is not a cursor this API returned', { parameter: 'cursor' });
  }
  return { limit, ...(cursor ? { before: cursor } : {}) };
}

/**
 * A list response. Callers fetch `limit + 1` rows; the extra row only tells that a next page exists.
 *
 * @example
 * const rows = await listAgents(db, tenantId, { ...page, limit: page.limit + 1 });
 * return c.json(pageOf(rows, page, agentView));
 */
export function pageOf<Row extends { id: string }, View>(rows: Row[], page: Page, view: (row: Row) => View) {
  const items = rows.slice(0, page.limit);
  const more = rows.length > page.limit;
  return { object: 'list', data: items.map(view), next_cursor: more ? (items.at(-1)?.id ?? null) : null };
}
