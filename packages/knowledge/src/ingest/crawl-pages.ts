import { addCrawlPage, type Db, type KnowledgeDocumentRow, updateKnowledgeDocumentSource } from '@agentry/db';
import { errors } from '@agentry/errors';
import { crawlSite } from '../crawl/crawl-site.ts';
import type { FetchedPage, PageFetcher } from '../types.ts';

/** The user agent a crawl announces to robots.txt (the page fetcher sends `AgentryBot/1.0`). */
export const CRAWLER_USER_AGENT = 'AgentryBot';

/** What a crawl needs of the ingestion's dependencies (`IngestDependencies` has all of it). */
export interface CrawlPagesDependencies {
  db: Db;
  limits: { maxCrawlPages: number; maxChars: number; maxDocumentsPerBase: number; maxBytesPerTenant: number };
  enqueue?(job: { tenantId: string; document: { id: string; generation: number } }): Promise<void>;
}

/**
 * Runs the crawl of a start document (`crawl` set, no parent) through `fetchPage` (the egress
 * guard's): every page after the first becomes a child document (`source: 'url'`, its URL, the
 * page's title) queued as its own ingestion job, or, when the crawl ran before (a retry, a
 * resync), the child already there is queued again. At most `min(crawl.max_pages,
 * maxCrawlPages)` pages. A new page past the base's documents or the tenant's bytes is not
 * added (pages already there are still queued again), and the start document records how many in
 * `crawl.skipped` (it still ends `ready`: its own page and the pages added are searchable). Returns
 * the start page (the start document's own source) and the pages the crawl yielded.
 *
 * @example
 * const { start, pages } = await crawlPages(deps, document, fetchPage, signal);
 */
export async function crawlPages(
  deps: CrawlPagesDependencies,
  document: KnowledgeDocumentRow,
  fetchPage: PageFetcher,
  signal: AbortSignal | undefined,
): Promise<{ start: FetchedPage; pages: number }> {
  const crawl = document.crawl!;
  const maxPages = Math.max(1, Math.min(crawl.max_pages, deps.limits.maxCrawlPages));
  let start: FetchedPage | undefined;
  let pages = 0;
  let skipped = 0;
  for await (const page of crawlSite(document.url!, {
    maxPages,
    sameSite: crawl.same_site,
    fetch: fetchPage,
    userAgent: CRAWLER_USER_AGENT,
    maxCharsPerPage: deps.limits.maxChars,
    signal,
  })) {
    pages++;
    if (!start) {
      start = page;
      continue;
    }
    const outcome = await addCrawlPage(
      deps.db,
      document.tenantId,
      { id: document.id, knowledgeBaseId: document.knowledgeBaseId },
      { url: page.url, title: titleOf(page) },
      { maxDocumentsPerBase: deps.limits.maxDocumentsPerBase, maxBytesPerTenant: deps.limits.maxBytesPerTenant },
    );
    if (outcome.kind === 'refused') {
      skipped++;
      continue;
    }
    // Queued again even when the child was already queued: a crashed run may have added it without queuing it.
    await deps.enqueue?.({ tenantId: document.tenantId, document: outcome.document });
  }
  if (!start) {
    throw errors.of({ code: 'document_unreadable', message: `${document.url} could not be crawled`, category: 'user' });
  }
  await updateKnowledgeDocumentSource(deps.db, document.tenantId, document.id, { crawl: { ...crawl, skipped } });
  return { start, pages };
}

/** A page's own title, else its address (its ingestion may find a better one, as for any URL). */
function titleOf(page: FetchedPage): string {
  const title = page.document?.title?.trim();
  return (title ? title : page.url).slice(0, 300);
}
