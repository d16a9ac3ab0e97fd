import type { UsageRow } from '@agentry/contract/schemas';
import { describe, expect, it } from 'vitest';
import { daysBetween, lastDays, niceMax, perAgent, perDay } from './usage-series.ts';

const row = (date: string, agent_id: string, runs: number, failed: number, tokens: number, tools = 0): UsageRow => ({
  date,
  agent_id,
  runs,
  completed: runs - failed,
  failed,
  cancelled: 0,
  input_tokens: tokens,
  output_tokens: 1,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  tool_calls: tools,
  tool_errors: 0,
});

describe('usage series', () => {
  const rows = [row('2026-03-01', 'b', 2, 1, 10, 3), row('2026-03-01', 'a', 1, 0, 5), row('2026-03-03', 'a', 4, 0, 7)];

  it('fills days without runs and sums agents per day', () => {
    expect(daysBetween('2026-02-27', '2026-03-02')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
    const days = perDay(rows, '2026-03-01', '2026-03-03');
    expect(days.map((d) => [d.date, d.runs, d.tokens, d.toolCalls, d.errorRate])).toEqual([
      ['2026-03-01', 3, 17, 3, 1 / 3],
      ['2026-03-02', 0, 0, 0, null],
      ['2026-03-03', 4, 8, 0, 0],
    ]);
  });

  it('totals per agent, busiest first', () => {
    expect(perAgent(rows).map((a) => [a.agentId, a.runs, a.tokens, a.errorRate])).toEqual([
      ['a', 5, 14, 0],
      ['b', 2, 11, 0.5],
    ]);
  });

  it('picks ranges and axis maxima', () => {
    expect(lastDays(7, new Date('2026-03-10T15:00:00Z'))).toEqual({ from: '2026-03-04', to: '2026-03-10' });
    expect([0, 1, 3, 17, 230, 1000].map(niceMax)).toEqual([1, 1, 5, 20, 500, 1000]);
  });
});
