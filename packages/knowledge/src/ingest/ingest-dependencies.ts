import { type Db, getTenant } from '@agentry/db';
import { type EgressPolicy, withAllowlist } from '@agentry/http-tools';
import type { KnowledgeSettings } from '../knowledge-settings.ts';
import type { EmbeddingModelResolver } from '../search/create-knowledge-search.ts';
import { createEgressPageFetcher } from './egress-page-fetcher.ts';
import { DEFAULT_INGEST_LIMITS, type IngestDependencies } from './ingest-document.ts';

/**
 * The ingestion dependencies of a process (the worker, or the API in the embedded mode): URLs are
 * fetched through the platform's egress policy widened by the tenant's own allowlist, bounded by
 * the file limit.
 *
 * @example
 * const deps = knowledgeIngestDependencies({ db, egress, settings, embeddingModelFor: builtinEmbeddingModelFor });
 */
export function knowledgeIngestDependencies(options: {
  db: Db;
  egress: EgressPolicy;
  settings: KnowledgeSettings;
  embeddingModelFor: EmbeddingModelResolver;
}): IngestDependencies {
  return {
    db: options.db,
    embeddingModelFor: options.embeddingModelFor,
    async pageFetcherFor(tenantId) {
      const tenant = await getTenant(options.db, tenantId);
      return createEgressPageFetcher({
        policy: withAllowlist(options.egress, tenant?.egressAllowlist ?? []),
        maxBytes: options.settings.maxFileBytes,
      });
    },
    limits: {
      ...DEFAULT_INGEST_LIMITS,
      maxChunksPerBase: options.settings.maxChunksPerBase,
      maxCrawlPages: options.settings.maxCrawlPages,
      maxDocumentsPerBase: options.settings.maxDocumentsPerBase,
      maxBytesPerTenant: options.settings.maxBytesPerTenant,
    },
  };
}
