import type { ToolExecutor } from '@agentry/agent';
import type { CompiledAgent } from '@agentry/config';
import { errors } from '@agentry/errors';
import type { KnowledgeSearch } from '@agentry/knowledge';
import type { Message } from '@agentry/llm';
import { createSourceLedger, type SourceLedger } from './knowledge-sources.ts';
import { createKnowledgeExecutor, type KnowledgeScope } from './knowledge-tool.ts';

/** What a run of an agent with `knowledge` searches with, and the numbers of its sources. */
export interface RunKnowledge {
  mode: 'tool' | 'auto';
  ledger: SourceLedger;
  /** Runs `search_knowledge` (offered to the model in `tool` mode only). */
  executor: ToolExecutor;
}

/** Without a search in the deps (a deployment that wires none), searches fail as tool errors. */
const unavailable: KnowledgeSearch = {
  search: () =>
    Promise.reject(
      errors.of({
        code: 'embeddings_not_configured',
        message: 'Knowledge search is not available on this deployment',
        category: 'system',
      }),
    ),
};

/**
 * The knowledge part of a run: none for agents without `knowledge`; otherwise its mode, the source
 * ledger built from the transcript and the `search_knowledge` executor scoped to the run's tenant
 * and the agent's bases.
 *
 * @example
 * const knowledge = runKnowledge(agent, deps.knowledge, run.tenantId, history);
 */
export function runKnowledge(
  agent: CompiledAgent,
  search: KnowledgeSearch | undefined,
  tenantId: string,
  history: readonly Message[],
): RunKnowledge | undefined {
  const config = agent.config.knowledge;
  if (!config) return undefined;
  const ledger = createSourceLedger(history);
  const scope: KnowledgeScope = {
    search: search ?? unavailable,
    tenantId,
    bases: config.bases,
    topK: config.top_k ?? 5,
  };
  return { mode: config.mode ?? 'tool', ledger, executor: createKnowledgeExecutor(scope, ledger) };
}
