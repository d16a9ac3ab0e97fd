import type { ToolExecutionResult, ToolExecutor } from '@agentry/agent';
import { toAppError } from '@agentry/errors';
import type { KnowledgeSearch } from '@agentry/knowledge';
import type { ToolDefinition } from '@agentry/llm';
import { SEARCH_KNOWLEDGE, type SourceLedger } from './knowledge-sources.ts';

/** A query longer than this is cut: a search needs a question, not a document. */
const MAX_QUERY_CHARS = 1000;

/** What the runner searches with: the run's tenant, the agent's bases and how many hits. */
export interface KnowledgeScope {
  search: KnowledgeSearch;
  tenantId: string;
  bases: readonly string[];
  topK: number;
}

export const searchKnowledgeDefinition: ToolDefinition = {
  name: SEARCH_KNOWLEDGE,
  description:
    "Search the business's own documents (its knowledge bases) for passages that answer a question. Use it before answering questions about the business, its products, policies or procedures. The passages come numbered [n]; cite the ones you use in your answer as [n] (or [n, m]).",
  parameters: {
    type: 'object',
    properties: { query: { type: 'string', description: 'What to look for, in the words of the question' } },
    required: ['query'],
    additionalProperties: false,
  },
};

/**
 * Searches the agent's knowledge bases for the query and lists the hits as numbered sources (the
 * ledger numbers them). A failed search is a tool error with the search's code, never a throw.
 *
 * @example
 * const result = await searchKnowledge(scope, ledger, 'refund policy');
 */
export async function searchKnowledge(
  scope: KnowledgeScope,
  ledger: SourceLedger,
  query: string,
  signal?: AbortSignal,
): Promise<ToolExecutionResult> {
  try {
    const hits = await scope.search.search({
      tenantId: scope.tenantId,
      knowledgeBases: scope.bases,
      query: query.slice(0, MAX_QUERY_CHARS),
      topK: scope.topK,
      ...(signal ? { signal } : {}),
    });
    return { output: ledger.list(hits), isError: false, meta: { hits: hits.length } };
  } catch (error) {
    const appError = toAppError(error);
    return {
      output: { error: appError.code, message: appError.message },
      isError: true,
      errorCode: appError.code,
    };
  }
}

/**
 * The `search_knowledge` tool, run in-process against the run's tenant and the agent's bases.
 *
 * @example
 * const tools = composeExecutors(http, createKnowledgeExecutor(scope, ledger));
 */
export function createKnowledgeExecutor(scope: KnowledgeScope, ledger: SourceLedger): ToolExecutor {
  return {
    definitions: () => [searchKnowledgeDefinition],
    async execute(call, options) {
      const args = call.arguments;
      const query =
        typeof args === 'object' && args !== null && 'query' in args && typeof args.query === 'string'
          ? args.query.trim()
          : '';
      if (!query) {
        return {
          output: { error: 'invalid_arguments', message: 'search_knowledge needs a non-empty `query` string.' },
          isError: true,
          errorCode: 'invalid_arguments',
        };
      }
      return searchKnowledge(scope, ledger, query, options?.signal);
    },
  };
}

/**
 * Feeds the ledger every `search_knowledge` result that passes, fresh or replayed from its record,
 * so a resumed run numbers new sources after the ones its first attempt listed.
 */
export function withSourceLedger(inner: ToolExecutor, ledger: SourceLedger): ToolExecutor {
  return {
    definitions: () => inner.definitions(),
    async execute(call, options) {
      const result = await inner.execute(call, options);
      if (call.name === SEARCH_KNOWLEDGE && !result.isError) ledger.observe(result.output);
      return result;
    },
  };
}
