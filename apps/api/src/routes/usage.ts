import { type DailyUsage, isId, usageByDay } from '@agentry/db';
import { errors } from '@agentry/errors';
import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import type { AuthVariables } from '../http/auth.ts';
import { doc, ref } from '../http/openapi.ts';

/** Longest range one request may ask for, in days (both ends included). */
export const MAX_USAGE_DAYS = 92;
const DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** A `YYYY-MM-DD` query parameter as the start of that UTC day; 400 `invalid_query` otherwise. */
function readDate(raw: string, parameter: string): Date {
  const date = new Date(`${raw}T00:00:00Z`);
  if (!DATE_RE.test(raw) || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== raw) {
    throw errors.badRequest('invalid_query', `\`${parameter}\` must be a date as YYYY-MM-DD`, { parameter });
  }
  return date;
}

function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * The requested days: `to` defaults to today (UTC), `from` to 29 days before `to`; at most
 * {@link MAX_USAGE_DAYS} days, `from` not after `to`.
 *
 * @example
 * readRange('2026-05-01', '2026-05-31'); // { from: 2026-05-01T00:00Z, until: 2026-06-01T00:00Z }
 */
export function readRange(rawFrom: string | undefined, rawTo: string | undefined): { from: Date; until: Date } {
  const to = rawTo ? readDate(rawTo, 'to') : readDate(isoDay(new Date()), 'to');
  const from = rawFrom ? readDate(rawFrom, 'from') : new Date(to.getTime() - (DEFAULT_DAYS - 1) * DAY_MS);
  if (from > to) throw errors.badRequest('invalid_query', '`from` must not be after `to`', { parameter: 'from' });
  const days = (to.getTime() - from.getTime()) / DAY_MS + 1;
  if (days > MAX_USAGE_DAYS) {
    throw errors.badRequest(
      'invalid_query',
      `A usage range covers at most ${MAX_USAGE_DAYS} days; this one has ${days}`,
      {
        parameter: 'from',
      },
    );
  }
  return { from, until: new Date(to.getTime() + DAY_MS) };
}

function usageView(row: DailyUsage) {
  return {
    date: row.date,
    agent_id: row.agentId,
    runs: row.runs,
    completed: row.completed,
    failed: row.failed,
    cancelled: row.cancelled,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    cache_read_tokens: row.cacheReadTokens,
    cache_write_tokens: row.cacheWriteTokens,
    tool_calls: row.toolCalls,
    tool_errors: row.toolErrors,
  };
}

type UsageView = ReturnType<typeof usageView>;
type Totals = Omit<UsageView, 'date' | 'agent_id'>;

function totalsOf(rows: UsageView[]): Totals {
  const totals: Totals = {
    runs: 0,
    completed: 0,
    failed: 0,
    cancelled: 0,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    tool_calls: 0,
    tool_errors: 0,
  };
  for (const row of rows) for (const key of Object.keys(totals) as Array<keyof Totals>) totals[key] += row[key];
  return totals;
}

/**
 * `GET /v1/usage?from=&to=&agent_id=`: the tenant's runs, outcomes, tokens and tool calls per UTC
 * day and agent (days without runs are left out), with totals over the range.
 */
export function usageRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.get(
    '/',
    doc({
      operationId: 'getUsage',
      tag: 'Usage',
      summary: 'Runs, outcomes, tokens and tool calls per UTC day and agent, with totals',
      auth: 'tenant',
      query: {
        from: {
          description: 'First day (UTC), default 29 days before `to`',
          schema: { type: 'string', format: 'date' },
        },
        to: { description: 'Last day (UTC, included), default today', schema: { type: 'string', format: 'date' } },
        agent_id: { description: 'Only this agent', resource: 'agent', schema: { type: 'string', format: 'uuid' } },
      },
      responses: { 200: { description: `Usage (at most ${MAX_USAGE_DAYS} days)`, schema: ref('Usage') } },
      errors: ['invalid_query'],
    }),
  );
  app.get('/', async (c) => {
    const { from, until } = readRange(c.req.query('from'), c.req.query('to'));
    const agentId = c.req.query('agent_id');
    const rows =
      agentId !== undefined && !isId(agentId)
        ? []
        : (await usageByDay(deps.db, c.var.tenant.id, { from, until, ...(agentId ? { agentId } : {}) })).map(usageView);
    return c.json({
      object: 'usage',
      from: isoDay(from),
      to: isoDay(new Date(until.getTime() - DAY_MS)),
      ...(agentId !== undefined ? { agent_id: agentId } : {}),
      data: rows,
      totals: totalsOf(rows),
    });
  });
  return app;
}
