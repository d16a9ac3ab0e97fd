import { and, asc, eq, gte, lt, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { runs, toolCalls } from '../schema.ts';
import { type Tx, withTenantScope } from '../tenant-scope.ts';

/** What one agent used on one UTC day. */
export interface DailyUsage {
  /** `YYYY-MM-DD`, UTC. */
  date: string;
  agentId: string;
  runs: number;
  completed: number;
  /** `failed` and `timed_out` runs. */
  failed: number;
  cancelled: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  toolCalls: number;
  toolErrors: number;
}

export interface UsageQuery {
  /** Start of the first day, inclusive. */
  from: Date;
  /** Start of the day after the last one, exclusive. */
  until: Date;
  agentId?: string;
}

const day = sql<string>`to_char(${runs.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
const tokens = (field: string) => sql<string>`coalesce(sum((${runs.usage} ->> ${sql.raw(`'${field}'`)})::bigint), 0)`;

/** Tool calls and failed tool calls per run, from the durable tool-call records. */
function toolCallsPerRun(db: Tx, tenantId: string) {
  return db
    .select({
      runId: toolCalls.runId,
      calls: sql<string>`count(*)`.as('calls'),
      errors: sql<string>`count(*) filter (where ${toolCalls.isError})`.as('errors'),
    })
    .from(toolCalls)
    .where(eq(toolCalls.tenantId, tenantId))
    .groupBy(toolCalls.runId)
    .as('tool_totals');
}

/**
 * Runs, outcomes, tokens and tool calls per UTC day and agent, for runs created in the range
 * (days without runs are absent). Ordered by day, then agent.
 *
 * @example
 * const rows = await usageByDay(db, tenantId, { from: new Date('2026-05-01'), until: new Date('2026-06-01') });
 */
export async function usageByDay(db: Db, tenantId: string, query: UsageQuery): Promise<DailyUsage[]> {
  const rows = await withTenantScope(db, tenantId, (tx) => {
    const perRun = toolCallsPerRun(tx, tenantId);
    return tx
      .select({
        date: day,
        agentId: runs.agentId,
        runs: sql<string>`count(*)`,
        completed: sql<string>`count(*) filter (where ${runs.status} = 'completed')`,
        failed: sql<string>`count(*) filter (where ${runs.status} in ('failed', 'timed_out'))`,
        cancelled: sql<string>`count(*) filter (where ${runs.status} = 'cancelled')`,
        inputTokens: tokens('inputTokens'),
        outputTokens: tokens('outputTokens'),
        cacheReadTokens: tokens('cacheReadTokens'),
        cacheWriteTokens: tokens('cacheWriteTokens'),
        toolCalls: sql<string>`coalesce(sum(${perRun.calls}), 0)`,
        toolErrors: sql<string>`coalesce(sum(${perRun.errors}), 0)`,
      })
      .from(runs)
      .leftJoin(perRun, eq(perRun.runId, runs.id))
      .where(
        and(
          eq(runs.tenantId, tenantId),
          gte(runs.createdAt, query.from),
          lt(runs.createdAt, query.until),
          query.agentId ? eq(runs.agentId, query.agentId) : undefined,
        ),
      )
      .groupBy(day, runs.agentId)
      .orderBy(asc(day), asc(runs.agentId));
  });
  return rows.map((r) => ({
    date: r.date,
    agentId: r.agentId,
    runs: Number(r.runs),
    completed: Number(r.completed),
    failed: Number(r.failed),
    cancelled: Number(r.cancelled),
    inputTokens: Number(r.inputTokens),
    outputTokens: Number(r.outputTokens),
    cacheReadTokens: Number(r.cacheReadTokens),
    cacheWriteTokens: Number(r.cacheWriteTokens),
    toolCalls: Number(r.toolCalls),
    toolErrors: Number(r.toolErrors),
  }));
}
