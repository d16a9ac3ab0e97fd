export { chunkDocument, DEFAULT_CHUNK_OPTIONS } from './chunk/chunk-document.ts';
export { countTokens } from './chunk/token-estimate.ts';
export { crawlSite, normalizeUrl } from './crawl/crawl-site.ts';
export { builtinEmbeddingModelFor, DEFAULT_KNOWLEDGE_EMBEDDING } from './embedding-model-resolver.ts';
export {
  isRelevant,
  type RecallReport,
  type RetrievalSearchFn,
  type RetrievedPassage,
  recallAtK,
} from './eval/recall-at-k.ts';
export { parseRetrievalQuestions, type RetrievalQuestion } from './eval/retrieval-question.ts';
export { detectFormat } from './extract/detect-format.ts';
export { extractDocument } from './extract/extract-document.ts';
export { createEgressPageFetcher } from './ingest/egress-page-fetcher.ts';
export { knowledgeIngestDependencies } from './ingest/ingest-dependencies.ts';
export {
  DEFAULT_INGEST_LIMITS,
  embeddedText,
  type IngestDependencies,
  type IngestLimits,
  ingestDocument,
  isDocumentError,
} from './ingest/ingest-document.ts';
export {
  DEFAULT_INGESTION_CONCURRENCY,
  type IngestionWorker,
  type IngestionWorkerOptions,
  KNOWLEDGE_QUEUE_NAME,
  type KnowledgeJobData,
  knowledgeJobId,
  startIngestionWorker,
  sweepStaleDocuments,
} from './ingest/ingestion-jobs.ts';
export { type KnowledgeSettings, knowledgeSettingsFromEnv } from './knowledge-settings.ts';
export {
  createKnowledgeSearch,
  type EmbeddingModelResolver,
  type KnowledgeSearchOptions,
  type StoreKnowledgeSearch,
  type VectorSearchSetting,
} from './search/create-knowledge-search.ts';
export { fuseRankings, RRF_K } from './search/reciprocal-rank-fusion.ts';
export type {
  ChunkOptions,
  CrawlOptions,
  DocumentChunk,
  ExtractedDocument,
  ExtractedSection,
  ExtractInput,
  ExtractLimits,
  FetchedPage,
  KnowledgeHit,
  KnowledgeSearch,
  PageFetcher,
  VectorSearchKind,
} from './types.ts';
