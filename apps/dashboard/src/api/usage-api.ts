import type { Usage } from '@agentry/contract/schemas';
import { apiFetch } from './client.ts';

export const usageApi = {
  get: (query: { from: string; to: string; agentId?: string }) => {
    const params = new URLSearchParams({ from: query.from, to: query.to });
    if (query.agentId) params.set('agent_id', query.agentId);
    return apiFetch<Usage>('GET', `/v1/usage?${params}`);
  },
};
