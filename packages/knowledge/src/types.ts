import type { KnowledgeDocumentFormat } from '@agentry/contract/schemas';

/**
 * The seams of knowledge ingestion and retrieval. Extraction and chunking are pure (bytes in,
 * sections and chunks out); crawling fetches only through a function it is given (the egress
 * guard's); storage and search live with the database.
 */

/** A stretch of a document's text under one heading path (and on one PDF page, when it has pages). */
export interface ExtractedSection {
  /** The headings above this text, outermost first (`[]` before the first heading). */
  headingPath: string[];
  text: string;
  /** 1-based PDF page; null for formats without pages. */
  page: number | null;
}

/** A document's text, in reading order, with its structure. */
export interface ExtractedDocument {
  /** The document's own title (PDF metadata, `<title>`, the first `#` heading), if it has one. */
  title: string | null;
  sections: ExtractedSection[];
  /** PDF page count; null for other formats. */
  pages: number | null;
  /** HTML only: the absolute http(s) links of the page (for crawling), in document order, deduplicated. */
  links: string[];
}

export interface ExtractInput {
  bytes: Uint8Array;
  format: KnowledgeDocumentFormat;
  /** Used for titles when the document has none. */
  filename?: string;
  /** HTML: the page's address, to resolve relative links. */
  url?: string;
  /** Return a document without sections instead of failing when there is no text (a crawl's link-only pages). */
  allowEmpty?: boolean;
}

export interface ExtractLimits {
  /** Stop (with `document_too_large`) past this many characters of text. */
  maxChars: number;
  /** PDFs: stop (with `document_too_large`) past this many pages. */
  maxPages: number;
  /** Stop (with `document_unreadable`) a parse that takes longer than this; 60 s unless set. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A piece of a document that is embedded and indexed on its own (a search hit). */
export interface DocumentChunk {
  /** 0-based position in the document. */
  index: number;
  text: string;
  headingPath: string[];
  page: number | null;
  /** The chunk's size in tokens (the same estimate the bounds use). */
  tokens: number;
}

export interface ChunkOptions {
  /** Upper bound of a chunk's tokens. */
  maxTokens: number;
  /** Tokens repeated from the end of the previous chunk of the same section. */
  overlapTokens: number;
}

/** One page a crawl fetched. */
export interface FetchedPage {
  url: string;
  /** The status and type of the final response (after redirects the fetcher followed). */
  status: number;
  contentType: string | null;
  bytes: Uint8Array;
  /** Set by `crawlSite` for pages it extracted to find links (HTML), so the caller need not read them again. */
  document?: ExtractedDocument;
}

/**
 * Fetches one URL (through the egress guard, bounded in bytes and time). Throws `AppError`s
 * (`egress_*`, `document_too_large`, …).
 */
export type PageFetcher = (url: string, signal?: AbortSignal) => Promise<FetchedPage>;

export interface CrawlOptions {
  maxPages: number;
  /** Follow only links on the start page's host (and its `www.` twin). */
  sameSite: boolean;
  fetch: PageFetcher;
  /** The user agent robots.txt rules are matched against. */
  userAgent: string;
  signal?: AbortSignal;
  /** Stop once the pages fetched add up to this many bytes; 100 MB unless set. */
  maxBytes?: number;
  /** The longest wait between two fetches from one site that a robots.txt `Crawl-delay` gets; 2 s unless set. */
  maxCrawlDelayMs?: number;
  /** Characters of text read from one HTML page (to find its links); 5 000 000 unless set. */
  maxCharsPerPage?: number;
}

/** A retrieval hit: a chunk with where it came from and its fused score. */
export interface KnowledgeHit {
  chunkId: string;
  documentId: string;
  knowledgeBaseId: string;
  title: string;
  headingPath: string[];
  page: number | null;
  url: string | null;
  text: string;
  score: number;
}

/** How a database compares vectors: pgvector's operators, or the exact search built in. */
export type VectorSearchKind = 'pgvector' | 'builtin';

/**
 * Retrieval as agents see it: the run's tenant, the agent's bases, a query. The runner gets one
 * through its dependencies; the API's search route uses the same.
 *
 * @example
 * const hits = await knowledge.search({ tenantId, knowledgeBases: ['Help center'], query: 'refund policy', topK: 5 });
 */
export interface KnowledgeSearch {
  search(params: {
    tenantId: string;
    /** The bases to search, by id or by name (an agent config may name either). */
    knowledgeBases: readonly string[];
    query: string;
    topK: number;
    signal?: AbortSignal;
  }): Promise<KnowledgeHit[]>;
}
