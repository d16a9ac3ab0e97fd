import { apiFetch } from './client.ts';
import type { Conversation, ConversationWithMessages, Page, Run } from './types.ts';

const enc = encodeURIComponent;

export interface ConversationQuery {
  agentId?: string;
  limit?: number;
  cursor?: string;
}

export function conversationQueryString(query: ConversationQuery): string {
  const params = new URLSearchParams();
  if (query.agentId) params.set('agent_id', query.agentId);
  params.set('limit', String(query.limit ?? 25));
  if (query.cursor) params.set('cursor', query.cursor);
  return params.toString();
}

export const conversationsApi = {
  list: (query: ConversationQuery) =>
    apiFetch<Page<Conversation>>('GET', `/v1/conversations?${conversationQueryString(query)}`),
  get: (id: string) => apiFetch<ConversationWithMessages>('GET', `/v1/conversations/${enc(id)}`),
  create: (agentId: string, agentVersion: number, context?: Record<string, unknown>) =>
    apiFetch<Conversation>('POST', '/v1/conversations', {
      agent_id: agentId,
      agent_version: agentVersion,
      ...(context ? { context } : {}),
    }),
  send: (id: string, content: string) => apiFetch<Run>('POST', `/v1/conversations/${enc(id)}/messages`, { content }),
  run: (id: string) => apiFetch<Run>('GET', `/v1/runs/${enc(id)}`),
};
