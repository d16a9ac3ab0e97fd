import { type Env, envEnum, envInt } from '@agentry/env';
import type { VectorSearchSetting } from './search/create-knowledge-search.ts';

/** The bounds and switches of knowledge bases, the same in the API and the worker. */
export interface KnowledgeSettings {
  /** KNOWLEDGE_VECTOR_SEARCH: `auto` (pgvector when the database has it), `pgvector` or `builtin`. */
  vectorSearch: VectorSearchSetting;
  /** KNOWLEDGE_MAX_FILE_BYTES: one upload or fetched page (default 20 MiB). */
  maxFileBytes: number;
  /** KNOWLEDGE_MAX_DOCUMENTS_PER_BASE (default 1,000). */
  maxDocumentsPerBase: number;
  /** KNOWLEDGE_MAX_CHUNKS_PER_BASE (default 100,000). */
  maxChunksPerBase: number;
  /** KNOWLEDGE_MAX_BASES_PER_TENANT (default 50). */
  maxBasesPerTenant: number;
  /** KNOWLEDGE_MAX_BYTES_PER_TENANT: stored sources of a tenant (default 1 GiB). */
  maxBytesPerTenant: number;
  /** KNOWLEDGE_MAX_CRAWL_PAGES: a crawl's pages at most (default 500). */
  maxCrawlPages: number;
  /** KNOWLEDGE_INGESTION_CONCURRENCY: documents ingested at once per process (default 2). */
  ingestionConcurrency: number;
}

/**
 * Reads {@link KnowledgeSettings} (each app's `config.ts` calls it with its environment).
 *
 * @example
 * const knowledge = knowledgeSettingsFromEnv(process.env);
 */
export function knowledgeSettingsFromEnv(env: Env): KnowledgeSettings {
  return {
    vectorSearch: envEnum(env, 'KNOWLEDGE_VECTOR_SEARCH', ['auto', 'pgvector', 'builtin'] as const, 'auto'),
    maxFileBytes: envInt(env, 'KNOWLEDGE_MAX_FILE_BYTES', 20 * 1024 * 1024, [1024, 1024 * 1024 * 1024]),
    maxDocumentsPerBase: envInt(env, 'KNOWLEDGE_MAX_DOCUMENTS_PER_BASE', 1000, [1, 1_000_000]),
    maxChunksPerBase: envInt(env, 'KNOWLEDGE_MAX_CHUNKS_PER_BASE', 100_000, [1, 100_000_000]),
    maxBasesPerTenant: envInt(env, 'KNOWLEDGE_MAX_BASES_PER_TENANT', 50, [1, 100_000]),
    maxBytesPerTenant: envInt(env, 'KNOWLEDGE_MAX_BYTES_PER_TENANT', 1024 * 1024 * 1024, [1024, 2 ** 50]),
    maxCrawlPages: envInt(env, 'KNOWLEDGE_MAX_CRAWL_PAGES', 500, [1, 500]),
    ingestionConcurrency: envInt(env, 'KNOWLEDGE_INGESTION_CONCURRENCY', 2, [1, 64]),
  };
}
