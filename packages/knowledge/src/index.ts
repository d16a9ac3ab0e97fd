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
