import { RUN_STATUSES } from '@agentry/contract';
import type { ConversationFilters } from '@agentry/db';
import { errors } from '@agentry/errors';

const DAY_MS = 86_400_000;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const MAX_SEARCH_CHARS = 200;

function invalid(parameter: string, message: string) {
  return errors.badRequest('invalid_query', message, { parameter });
}

function readDay(raw: string, parameter: string): Date {
  const date = new Date(`${raw}T00:00:00Z`);
  if (!DATE_RE.test(raw) || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== raw)
    throw invalid(parameter, `\`${parameter}\` must be a date as YYYY-MM-DD`);
  return date;
}

/**
 * The list filters of `GET /v1/conversations`: `q` (text in any message, at most 200 characters),
 * `from` / `to` (UTC days, both included), `status` (the latest run's status) and `has_error`
 * (`true` / `false`). Anything malformed is 400 `invalid_query` naming the parameter.
 *
 * @example
 * readConversationFilters({ q: 'refund', from: '2026-05-01', has_error: 'true' });
 * // { search: 'refund', createdFrom: 2026-05-01T00:00Z, hasError: true }
 */
export function readConversationFilters(query: Record<string, string | undefined>): ConversationFilters {
  const filters: ConversationFilters = {};
  const q = query.q?.trim();
  if (q) {
    if (q.length > MAX_SEARCH_CHARS) throw invalid('q', `\`q\` has at most ${MAX_SEARCH_CHARS} characters`);
    filters.search = q;
  }
  if (query.from) filters.createdFrom = readDay(query.from, 'from');
  if (query.to) filters.createdBefore = new Date(readDay(query.to, 'to').getTime() + DAY_MS);
  if (filters.createdFrom && filters.createdBefore && filters.createdFrom >= filters.createdBefore)
    throw invalid('from', '`from` must not be after `to`');
  if (query.status) {
    const status = RUN_STATUSES.find((s) => s === query.status);
    if (!status) throw invalid('status', `\`status\` must be one of ${RUN_STATUSES.join(', ')}`);
    filters.lastRunStatus = status;
  }
  if (query.has_error !== undefined && query.has_error !== '') {
    if (query.has_error !== 'true' && query.has_error !== 'false')
      throw invalid('has_error', '`has_error` must be true or false');
    filters.hasError = query.has_error === 'true';
  }
  return filters;
}
