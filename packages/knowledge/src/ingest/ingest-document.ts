import { createHash } from 'node:crypto';
import type { KnowledgeDocumentFormat } from '@agentry/contract/schemas';
import {
  type Db,
  failKnowledgeDocument,
  finishKnowledgeDocument,
  getKnowledgeBase,
  type KnowledgeDocumentRow,
  loadKnowledgeDocument,
  type NewKnowledgeChunk,
  startKnowledgeDocument,
  updateKnowledgeDocumentSource,
} from '@agentry/db';
import { type AppError, errors, isAppError } from '@agentry/errors';
import { lexicalFeatures } from '@agentry/provider-demo';
import { chunkDocument } from '../chunk/chunk-document.ts';
import { detectFormat } from '../extract/detect-format.ts';
import { extractDocument } from '../extract/extract-document.ts';
import type { EmbeddingModelResolver } from '../search/create-knowledge-search.ts';
import type { ChunkOptions, DocumentChunk, PageFetcher } from '../types.ts';
import { crawlPages } from './crawl-pages.ts';

/** What ingestion needs: the database, the models, a fetcher for URLs, and its bounds. */
export interface IngestDependencies {
  db: Db;
  embeddingModelFor: EmbeddingModelResolver;
  /**
   * The page fetcher for a tenant's URL documents: the egress guard with the tenant's allowlist,
   * bounded in bytes and time (`createEgressPageFetcher`).
   */
  pageFetcherFor(tenantId: string): Promise<PageFetcher> | PageFetcher;
  limits: IngestLimits;
  /**
   * Queues a document's ingestion job: a crawl's pages get one each. `startIngestionWorker` sets it
   * to its queue; without it the pages wait `queued` for the sweeper.
   */
  enqueue?(job: { tenantId: string; document: { id: string; generation: number } }): Promise<void>;
}

export interface IngestLimits {
  /** Characters of extracted text per document. */
  maxChars: number;
  /** PDF pages per document. */
  maxPages: number;
  maxChunksPerBase: number;
  /** A crawl's pages at most, whatever its own `max_pages` (KNOWLEDGE_MAX_CRAWL_PAGES). */
  maxCrawlPages: number;
  /** The bounds a crawl's new pages are checked against, as uploads are. */
  maxDocumentsPerBase: number;
  maxBytesPerTenant: number;
  chunk: ChunkOptions;
}

/** Defaults of {@link IngestLimits}. */
export const DEFAULT_INGEST_LIMITS: IngestLimits = {
  maxChars: 5_000_000,
  maxPages: 2_000,
  maxChunksPerBase: 100_000,
  maxCrawlPages: 500,
  maxDocumentsPerBase: 1000,
  maxBytesPerTenant: 1024 * 1024 * 1024,
  chunk: { maxTokens: 400, overlapTokens: 40 },
};

/** The codes a document's own content or address causes: the document fails with them, for good. */
const DOCUMENT_CODES = new Set([
  'document_unreadable',
  'document_too_large',
  'unsupported_document_type',
  'knowledge_base_full',
  'embedding_model_mismatch',
  'embeddings_not_configured',
  'model_not_configured',
  // The embedding provider refused the key or the request: retrying cannot help until someone acts.
  'model_auth_failed',
  'model_bad_request',
  'import_fetch_failed',
]);

/** Whether an error is the document's fault (fail it) rather than the infrastructure's (retry the job). */
export function isDocumentError(error: unknown): error is AppError {
  return isAppError(error) && (DOCUMENT_CODES.has(error.code) || error.code.startsWith('egress_'));
}

/**
 * Ingests one document: loads it (a URL is fetched through the egress guard and its bytes kept),
 * detects its format, extracts, chunks, embeds in batches (updating `progress`) and then, in one
 * transaction, replaces its chunks and marks it `ready`. A fault of the document (unreadable, too
 * large, unsupported, refused address, full base) ends it `failed` with `{code, message}` and no
 * chunks; anything else (database, Redis, a model's 429/5xx) is thrown for the job to retry,
 * leaving the document `processing`. A document deleted meanwhile is simply skipped.
 *
 * @example
 * await ingestDocument(deps, tenantId, documentId);
 */
export async function ingestDocument(
  deps: IngestDependencies,
  tenantId: string,
  documentId: string,
  signal?: AbortSignal,
): Promise<'ready' | 'failed' | 'gone'> {
  const document = await loadKnowledgeDocument(deps.db, tenantId, documentId);
  if (!document) return 'gone';
  if (!(await startKnowledgeDocument(deps.db, tenantId, documentId))) return 'gone';
  try {
    const chunks = await buildChunks(deps, document, signal);
    const stored = await finishKnowledgeDocument(
      deps.db,
      tenantId,
      documentId,
      { chunks: chunks.chunks, pages: chunks.pages },
      { maxChunksPerBase: deps.limits.maxChunksPerBase },
    );
    return stored ? 'ready' : 'gone';
  } catch (error) {
    if (!isDocumentError(error)) throw error;
    await failKnowledgeDocument(deps.db, tenantId, documentId, { code: error.code, message: error.message });
    return 'failed';
  }
}

async function buildChunks(
  deps: IngestDependencies,
  document: KnowledgeDocumentRow,
  signal: AbortSignal | undefined,
): Promise<{ chunks: NewKnowledgeChunk[]; pages: number | null }> {
  const { tenantId } = document;
  const source = await sourceOf(deps, document, signal);
  const extracted = await extractDocument(
    {
      bytes: source.bytes,
      format: source.format,
      filename: document.filename ?? undefined,
      url: document.url ?? undefined,
    },
    { maxChars: deps.limits.maxChars, maxPages: deps.limits.maxPages, signal },
  );
  // A URL or file added without a title is named by its address or file name until its own title is known.
  const untitled =
    (document.source === 'url' && document.title === document.url) ||
    (document.source === 'file' && document.title === document.filename);
  const title = (untitled ? extracted.title : null) || document.title || extracted.title || 'Untitled';
  const pieces = chunkDocument(extracted, deps.limits.chunk);
  if (pieces.length === 0) {
    throw errors.of({ code: 'document_unreadable', message: 'The document has no text to index', category: 'user' });
  }
  const pages = source.crawledPages ?? extracted.pages;
  await updateKnowledgeDocumentSource(deps.db, tenantId, document.id, {
    progress: 0.1,
    pages,
    ...(extracted.title && untitled ? { title: extracted.title } : {}),
  });
  const base = await baseModelOf(deps, document);
  const vectors = await embedAll(
    deps,
    document,
    base,
    pieces.map((piece) => embeddedText(title, piece)),
    signal,
  );
  return {
    pages,
    chunks: pieces.map((piece, i) => ({
      index: piece.index,
      text: piece.text,
      headingPath: piece.headingPath,
      page: piece.page,
      tokens: piece.tokens,
      embedding: vectors[i]!,
      features: lexicalFeatures(`${title}\n${piece.headingPath.join('\n')}\n${piece.text}`),
    })),
  };
}

/** What is embedded: the title and headings give a chunk the context its text alone lacks. */
export function embeddedText(title: string, chunk: Pick<DocumentChunk, 'headingPath' | 'text'>): string {
  return [title, ...chunk.headingPath, chunk.text].filter((part) => part.trim() !== '').join('\n');
}

async function sourceOf(
  deps: IngestDependencies,
  document: KnowledgeDocumentRow,
  signal: AbortSignal | undefined,
): Promise<{ bytes: Uint8Array; format: KnowledgeDocumentFormat; crawledPages?: number }> {
  if (document.source !== 'url') {
    const format = document.format as KnowledgeDocumentFormat | null;
    if (!document.content || !format) {
      throw errors.of({ code: 'document_unreadable', message: 'The document has no stored content', category: 'user' });
    }
    return { bytes: document.content, format };
  }
  const fetchPage = await deps.pageFetcherFor(document.tenantId);
  // A crawl's start document runs the crawl: its pages become documents of their own, its first is this one's source.
  const crawled =
    document.crawl && !document.parentId ? await crawlPages(deps, document, fetchPage, signal) : undefined;
  const page = crawled?.start ?? (await fetchPage(document.url!, signal));
  if (page.status < 200 || page.status >= 300) {
    throw errors.of({
      code: 'document_unreadable',
      message: `${document.url} answered HTTP ${page.status}`,
      category: 'user',
      details: { status: page.status },
    });
  }
  const format = detectFormat({ mediaType: page.contentType, filename: new URL(page.url).pathname, bytes: page.bytes });
  if (!format) {
    throw errors.of({
      code: 'unsupported_document_type',
      message: `${document.url} is ${page.contentType ?? 'of an unknown type'}, not a supported document`,
      category: 'user',
    });
  }
  await updateKnowledgeDocumentSource(deps.db, document.tenantId, document.id, {
    content: page.bytes,
    contentHash: createHash('sha256').update(page.bytes).digest('hex'),
    format,
    progress: 0.05,
  });
  return { bytes: page.bytes, format, ...(crawled ? { crawledPages: crawled.pages } : {}) };
}

async function baseModelOf(deps: IngestDependencies, document: KnowledgeDocumentRow) {
  const base = await getKnowledgeBase(deps.db, document.tenantId, document.knowledgeBaseId);
  if (!base) throw errors.notFound('knowledge_base', document.knowledgeBaseId);
  return base;
}

async function embedAll(
  deps: IngestDependencies,
  document: KnowledgeDocumentRow,
  base: { embeddingModel: string; dimensions: number },
  texts: string[],
  signal: AbortSignal | undefined,
): Promise<Float32Array[]> {
  const model = await deps.embeddingModelFor({
    tenantId: document.tenantId,
    spec: base.embeddingModel,
    dimensions: base.dimensions,
  });
  const vectors: Float32Array[] = [];
  const batch = Math.max(1, model.maxBatch);
  for (let start = 0; start < texts.length; start += batch) {
    const embedded = await model.embed(texts.slice(start, start + batch), { signal });
    for (const vector of embedded) {
      if (vector.length !== base.dimensions) {
        throw errors.conflict(
          'embedding_model_mismatch',
          `The model answered ${vector.length} dimensions; the knowledge base holds ${base.dimensions}`,
        );
      }
      vectors.push(vector);
    }
    const progress = 0.1 + (0.85 * vectors.length) / texts.length;
    await updateKnowledgeDocumentSource(deps.db, document.tenantId, document.id, { progress });
  }
  return vectors;
}
