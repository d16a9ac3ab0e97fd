import type { AgentConfig } from '../config/agent-config.ts';
import { apiFetch } from './client.ts';
import type { Agent, AgentVersion, ConfigChange, Page, ToolTestResult, ValidateResult } from './types.ts';

const enc = encodeURIComponent;

/** Accepts a bare array as well as a page, so an early list route works either way. */
function rows<T>(body: Page<T> | T[]): T[] {
  return Array.isArray(body) ? body : body.data;
}

export const agentsApi = {
  list: async (): Promise<Agent[]> => rows(await apiFetch<Page<Agent> | Agent[]>('GET', '/v1/agents?limit=100')),
  get: (id: string) => apiFetch<Agent>('GET', `/v1/agents/${enc(id)}`),
  create: (config: AgentConfig, publish: boolean) =>
    apiFetch<Agent & { version: AgentVersion }>('POST', '/v1/agents', { config, publish }),
  addVersion: (id: string, config: AgentConfig, publish: boolean) =>
    apiFetch<AgentVersion>('POST', `/v1/agents/${enc(id)}/versions`, { config, publish }),
  versions: async (id: string): Promise<AgentVersion[]> =>
    rows(await apiFetch<Page<AgentVersion> | AgentVersion[]>('GET', `/v1/agents/${enc(id)}/versions`)),
  version: (id: string, n: number) => apiFetch<AgentVersion>('GET', `/v1/agents/${enc(id)}/versions/${n}`),
  diff: (id: string, a: number, b: number) =>
    apiFetch<{ changes: ConfigChange[] }>('GET', `/v1/agents/${enc(id)}/versions/${a}/diff/${b}`),
  publish: (id: string, n: number) => apiFetch<AgentVersion>('POST', `/v1/agents/${enc(id)}/versions/${n}/publish`),
  prompt: (id: string) => apiFetch<{ prompt: string }>('GET', `/v1/agents/${enc(id)}/prompt`),
  validate: (config: unknown, signal?: AbortSignal) =>
    apiFetch<ValidateResult>('POST', '/v1/agents/validate', { config }, signal),
  testTool: (config: unknown, tool: string, args: Record<string, unknown>, send: boolean) =>
    apiFetch<ToolTestResult>('POST', '/v1/agents/tools/test', { config, tool, arguments: args, send }),
};
