export { chunkDocument, DEFAULT_CHUNK_OPTIONS } from './chunk/chunk-document.ts';
export { countTokens } from './chunk/token-estimate.ts';
export { crawlSite, normalizeUrl } from './crawl/crawl-site.ts';
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
