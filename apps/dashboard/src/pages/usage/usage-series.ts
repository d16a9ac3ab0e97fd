import type { UsageRow, UsageTotals } from '@agentry/contract/schemas';

const DAY_MS = 86_400_000;

/** One day of the chart, all agents (or the chosen one) summed; days without runs are zeros. */
export interface DayPoint {
  date: string;
  runs: number;
  completed: number;
  failed: number;
  tokens: number;
  toolCalls: number;
  toolErrors: number;
  /** Failed runs / runs, 0–1; null on a day without runs. */
  errorRate: number | null;
}

export interface AgentSummary {
  agentId: string;
  runs: number;
  failed: number;
  tokens: number;
  toolCalls: number;
  errorRate: number | null;
}

/** The UTC days from `from` to `to`, both included, as YYYY-MM-DD. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/** The range of the last `days` UTC days ending today. */
export function lastDays(days: number, now = new Date()): { from: string; to: string } {
  const to = now.toISOString().slice(0, 10);
  const from = new Date(Date.parse(`${to}T00:00:00Z`) - (days - 1) * DAY_MS).toISOString().slice(0, 10);
  return { from, to };
}

const rate = (failed: number, runs: number) => (runs > 0 ? failed / runs : null);

/**
 * Per-day points over the whole range (the API leaves out days without runs).
 *
 * @example
 * perDay([{ date: '2026-03-02', runs: 2, failed: 1, ... }], '2026-03-01', '2026-03-02');
 * // [{ date: '2026-03-01', runs: 0, errorRate: null, ... }, { date: '2026-03-02', runs: 2, errorRate: 0.5, ... }]
 */
export function perDay(rows: UsageRow[], from: string, to: string): DayPoint[] {
  const byDay = new Map<string, DayPoint>();
  for (const date of daysBetween(from, to))
    byDay.set(date, {
      date,
      runs: 0,
      completed: 0,
      failed: 0,
      tokens: 0,
      toolCalls: 0,
      toolErrors: 0,
      errorRate: null,
    });
  for (const row of rows) {
    const day = byDay.get(row.date);
    if (!day) continue;
    day.runs += row.runs;
    day.completed += row.completed;
    day.failed += row.failed;
    day.tokens += row.input_tokens + row.output_tokens;
    day.toolCalls += row.tool_calls;
    day.toolErrors += row.tool_errors;
  }
  return [...byDay.values()].map((d) => ({ ...d, errorRate: rate(d.failed, d.runs) }));
}

/** Totals per agent, busiest first. */
export function perAgent(rows: UsageRow[]): AgentSummary[] {
  const byAgent = new Map<string, AgentSummary>();
  for (const row of rows) {
    const a = byAgent.get(row.agent_id) ?? {
      agentId: row.agent_id,
      runs: 0,
      failed: 0,
      tokens: 0,
      toolCalls: 0,
      errorRate: null,
    };
    a.runs += row.runs;
    a.failed += row.failed;
    a.tokens += row.input_tokens + row.output_tokens;
    a.toolCalls += row.tool_calls;
    byAgent.set(row.agent_id, a);
  }
  return [...byAgent.values()]
    .map((a) => ({ ...a, errorRate: rate(a.failed, a.runs) }))
    .sort((a, b) => b.runs - a.runs || a.agentId.localeCompare(b.agentId));
}

export function totalErrorRate(totals: UsageTotals): number | null {
  return rate(totals.failed, totals.runs);
}

/** A "nice" axis maximum (1, 2, 5 × 10ⁿ) at or above the largest value, at least 1. */
export function niceMax(max: number): number {
  if (max <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  const step = [1, 2, 5, 10].find((m) => m * power >= max) ?? 10;
  return step * power;
}
