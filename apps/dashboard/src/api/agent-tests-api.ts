import type {
  AgentSettingsBody as AgentSettingsSchema,
  AgentTestDefinitionInput,
  AgentTestSchema,
  ImportAgentTestsBody,
  NewTestRunBody,
  Page,
  TestGate,
  TestRun,
} from '@agentry/contract/schemas';
import { apiFetch, type Input } from './client.ts';
import { followLiveStream, type LiveEvent } from './live-stream.ts';

const enc = encodeURIComponent;

export type AgentSettingsBody = Input<typeof AgentSettingsSchema>;
type ImportBody = Input<typeof ImportAgentTestsBody>;

/** A stored case (`definition` is the case as the API checked it). */
export type AgentTest = Omit<(typeof AgentTestSchema)['_zod']['output'], 'definition'> & {
  definition: AgentTestDefinitionInput;
};

/** `GET …/tests/export`: what the Export button downloads and Import reads back. */
export interface AgentTestsExport {
  object: 'agent_tests';
  agent_id: string | null;
  tests: unknown[];
}

/** The most test runs the history lists. */
const RUNS_LIMIT = 25;

const tests = (agentId: string) => `/v1/agents/${enc(agentId)}/tests`;
const runs = (agentId: string) => `/v1/agents/${enc(agentId)}/test-runs`;

/** `/v1/agents/{id}/tests`, `…/test-runs` and a version's test gate (issue 22). */
export const agentTestsApi = {
  list: async (agentId: string): Promise<AgentTest[]> => (await apiFetch<Page<AgentTest>>('GET', tests(agentId))).data,
  get: (agentId: string, testId: string) => apiFetch<AgentTest>('GET', `${tests(agentId)}/${enc(testId)}`),
  create: (agentId: string, definition: AgentTestDefinitionInput) =>
    apiFetch<AgentTest>('POST', tests(agentId), definition),
  update: (agentId: string, testId: string, definition: AgentTestDefinitionInput) =>
    apiFetch<AgentTest>('PUT', `${tests(agentId)}/${enc(testId)}`, definition),
  remove: (agentId: string, testId: string) => apiFetch<void>('DELETE', `${tests(agentId)}/${enc(testId)}`),
  exportAll: (agentId: string) => apiFetch<AgentTestsExport>('GET', `${tests(agentId)}/export`),
  importAll: (agentId: string, body: ImportBody) =>
    apiFetch<{ created: number; updated: number; removed: number }>('POST', `${tests(agentId)}/import`, body),

  startRun: (agentId: string, body: NewTestRunBody) => apiFetch<TestRun>('POST', runs(agentId), body),
  runs: async (agentId: string): Promise<TestRun[]> =>
    (await apiFetch<Page<TestRun>>('GET', `${runs(agentId)}?limit=${RUNS_LIMIT}`)).data,
  /** A run with every case's result. */
  run: (agentId: string, runId: string) => apiFetch<TestRun>('GET', `${runs(agentId)}/${enc(runId)}`),
  cancelRun: (agentId: string, runId: string) => apiFetch<TestRun>('POST', `${runs(agentId)}/${enc(runId)}/cancel`),
  /**
   * Follows a run's progress (SSE from its start: `test-run-started`, a `test-case` per finished
   * case, `test-run-finished` last) until it finishes or `signal` aborts.
   *
   * @example
   * await agentTestsApi.follow(agentId, run.id, (e) => e.type === 'test-case' && setDone(e.completed_count), signal);
   */
  follow: async (agentId: string, runId: string, onEvent: (event: LiveEvent) => void, signal: AbortSignal) => {
    const done = new AbortController();
    const stop = () => done.abort();
    signal.addEventListener('abort', stop, { once: true });
    try {
      await followLiveStream(
        `${runs(agentId)}/${enc(runId)}/events`,
        {
          onEvent: (event) => {
            onEvent(event);
            if (event.type === 'test-run-finished') stop();
          },
        },
        done.signal,
      );
    } finally {
      signal.removeEventListener('abort', stop);
    }
  },

  gate: (agentId: string, version: number) =>
    apiFetch<TestGate>('GET', `/v1/agents/${enc(agentId)}/versions/${version}/test-gate`),
};
