import { apiFetch } from './client.ts';

/** One row of `GET /v1/usage` (apps/api/src/routes/usage.ts): one UTC day of one agent. */
export interface UsageRow {
  date: string;
  agent_id: string;
  runs: number;
  completed: number;
  failed: number;
  cancelled: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  tool_calls: number;
  tool_errors: number;
}

export type UsageTotals = Omit<UsageRow, 'date' | 'agent_id'>;

export interface Usage {
  from: string;
  to: string;
  data: UsageRow[];
  totals: UsageTotals;
}

export const usageApi = {
  get: (query: { from: string; to: string; agentId?: string }) => {
    const params = new URLSearchParams({ from: query.from, to: query.to });
    if (query.agentId) params.set('agent_id', query.agentId);
    return apiFetch<Usage>('GET', `/v1/usage?${params}`);
  },
};
