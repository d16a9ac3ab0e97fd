import type {
  Conversation,
  ConversationDetail,
  ConversationList,
  NewConversationBody,
  NewMessageBody,
  Run,
  ToolAnswer,
  ToolResultsBody,
} from '@agentry/contract/schemas';
import { type ConversationFilter, filterParams } from '../router/routes.ts';
import { apiFetch } from './client.ts';

const enc = encodeURIComponent;

export interface ConversationQuery extends ConversationFilter {
  limit?: number;
  cursor?: string;
}

export function conversationQueryString(query: ConversationQuery): string {
  const params = filterParams(query);
  params.set('limit', String(query.limit ?? 25));
  if (query.cursor) params.set('cursor', query.cursor);
  return params.toString();
}

export const conversationsApi = {
  list: (query: ConversationQuery) =>
    apiFetch<ConversationList>('GET', `/v1/conversations?${conversationQueryString(query)}`),
  get: (id: string) => apiFetch<ConversationDetail>('GET', `/v1/conversations/${enc(id)}`),
  create: (agentId: string, agentVersion: number, context?: Record<string, unknown>) =>
    apiFetch<Conversation>('POST', '/v1/conversations', {
      agent_id: agentId,
      agent_version: agentVersion,
      ...(context ? { context } : {}),
    } satisfies NewConversationBody),
  send: (id: string, content: string) =>
    apiFetch<Run>('POST', `/v1/conversations/${enc(id)}/messages`, { content } satisfies NewMessageBody),
  run: (id: string) => apiFetch<Run>('GET', `/v1/runs/${enc(id)}`),
  cancel: (id: string) => apiFetch<Run>('POST', `/v1/runs/${enc(id)}/cancel`),
  /** Answers a waiting run's approvals and client tools; the run's event stream then goes on. */
  answer: (runId: string, results: ToolAnswer[]) =>
    apiFetch<Run>('POST', `/v1/runs/${enc(runId)}/tool-results`, { results } satisfies ToolResultsBody),
};
