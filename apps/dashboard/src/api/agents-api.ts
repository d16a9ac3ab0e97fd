import type {
  Agent,
  AgentCreated,
  AgentDiff,
  AgentList,
  AgentListItem,
  AgentPrompt,
  AgentSummary,
  AgentVersion,
  AgentVersionDetail,
  AgentVersionList,
  FlowTriggerTest,
  FlowTriggerTestBody,
  NewAgentVersionBody,
  PublishBody,
  ToolTestBody,
  ToolTestResult,
  ValidateConfigBody,
} from '@agentry/contract/schemas';
import type { AgentConfig } from '../config/agent-config.ts';
import type { AgentSettingsBody } from './agent-tests-api.ts';
import { apiFetch } from './client.ts';

const enc = encodeURIComponent;

/** A stored version with its config, which the API checked at upload: an AgentConfig. */
export type StoredVersion = Omit<AgentVersionDetail, 'config'> & { config: AgentConfig };

export const agentsApi = {
  list: async (): Promise<AgentListItem[]> => (await apiFetch<AgentList>('GET', '/v1/agents?limit=100')).data,
  get: (id: string) => apiFetch<Agent>('GET', `/v1/agents/${enc(id)}`),
  create: (config: AgentConfig, publish: boolean) =>
    apiFetch<AgentCreated>('POST', '/v1/agents', { config, publish } satisfies NewAgentVersionBody),
  /** `force`: an owner publishing past the agent's required tests, with the reason the audit log keeps. */
  addVersion: (id: string, config: AgentConfig, publish: boolean, force?: { reason: string }) =>
    apiFetch<AgentVersion>('POST', `/v1/agents/${enc(id)}/versions`, {
      config,
      publish,
      ...(force ? { force_publish: true, publish_reason: force.reason } : {}),
    } satisfies NewAgentVersionBody),
  /** `require_passing_tests` (issue 22). */
  updateSettings: (id: string, body: AgentSettingsBody) => apiFetch<Agent>('PATCH', `/v1/agents/${enc(id)}`, body),
  versions: async (id: string): Promise<AgentVersion[]> =>
    (await apiFetch<AgentVersionList>('GET', `/v1/agents/${enc(id)}/versions`)).data,
  version: (id: string, n: number) => apiFetch<StoredVersion>('GET', `/v1/agents/${enc(id)}/versions/${n}`),
  diff: (id: string, a: number, b: number) =>
    apiFetch<AgentDiff>('GET', `/v1/agents/${enc(id)}/versions/${a}/diff/${b}`),
  publish: (id: string, n: number, force?: { reason: string }) =>
    apiFetch<Agent>(
      'POST',
      `/v1/agents/${enc(id)}/versions/${n}/publish`,
      force ? ({ force: true, reason: force.reason } satisfies PublishBody) : undefined,
    ),
  prompt: (id: string, version?: number) =>
    apiFetch<AgentPrompt>('GET', `/v1/agents/${enc(id)}/prompt${version ? `?version=${version}` : ''}`),
  validate: (config: unknown, signal?: AbortSignal) =>
    apiFetch<AgentSummary>('POST', '/v1/agents/validate', { config } satisfies ValidateConfigBody, signal),
  testTrigger: (patterns: string[], text: string) =>
    apiFetch<FlowTriggerTest>('POST', '/v1/agents/flows/trigger-test', {
      patterns,
      text,
    } satisfies FlowTriggerTestBody),
  testTool: (config: unknown, tool: string, args: Record<string, unknown>, send: boolean) =>
    apiFetch<ToolTestResult>('POST', '/v1/agents/tools/test', {
      config,
      tool,
      arguments: args,
      send,
    } satisfies ToolTestBody),
};
