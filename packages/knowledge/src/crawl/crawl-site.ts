import { detectFormat } from '../extract/detect-format.ts';
import { extractDocument } from '../extract/extract-document.ts';
import { aborted, unreadable } from '../extract/extract-errors.ts';
import type { CrawlOptions, ExtractedDocument, FetchedPage } from '../types.ts';
import { loadRobotsRules, type RobotsRules } from './robots-rules.ts';

const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;
const DEFAULT_MAX_CRAWL_DELAY_MS = 2000;
const DEFAULT_MAX_CHARS_PER_PAGE = 5_000_000;
/** Fetches per page yielded at most (redirects to skipped types, 404s, …), so a crawl stays bounded. */
const FETCHES_PER_PAGE = 3;
/** URLs waiting per page still wanted: enough for a breadth-first crawl, bounded in memory. */
const QUEUE_PER_PAGE = 100;

/**
 * Crawls a site breadth-first from `startUrl`, yielding at most `maxPages` pages (HTML, and the
 * documents it links to that can be read: PDF, DOCX, text, …). It fetches only through
 * `options.fetch` (the egress guard's), honours robots.txt (fetched once per origin; its
 * `Crawl-delay` up to `maxCrawlDelayMs`), follows links only from HTML pages (and, with
 * `sameSite`, only to the start host and its `www.` twin), visits each URL once (fragments
 * dropped), and stops at `maxBytes` fetched or when `signal` aborts. A start page that cannot be
 * fetched or read fails the crawl; later pages that fail are skipped. HTML pages come with the
 * `document` extracted to find their links.
 *
 * @example
 * for await (const page of crawlSite('https://help.example.com/', { maxPages: 50, sameSite: true, fetch, userAgent: 'AgentryBot' })) {
 *   await ingest(page);
 * }
 */
export async function* crawlSite(startUrl: string, options: CrawlOptions): AsyncGenerator<FetchedPage> {
  const start = normalizeUrl(startUrl);
  if (!start) throw unreadable(`${startUrl} is not an http(s) address`);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const rulesFor = robotsCache(options);
  const lastFetch = new Map<string, number>();
  const seen = new Set<string>([start]); // queued or fetched
  const fetched = new Set<string>(); // fetched, under the address asked for and the final one
  const queue: string[] = [start];
  let yielded = 0;
  let fetches = 0;
  let bytes = 0;
  while (queue.length && yielded < options.maxPages && fetches < options.maxPages * FETCHES_PER_PAGE) {
    throwIfAborted(options.signal);
    const url = queue.shift() as string;
    if (fetched.has(url)) continue; // reached earlier through a redirect
    const isStart = url === start;
    const origin = new URL(url).origin;
    const { isAllowed, delayMs } = await rulesFor(origin);
    if (!isAllowed(url)) {
      if (isStart) throw unreadable(`The site's robots.txt does not allow reading ${url}`);
      continue;
    }
    await waitCrawlDelay(lastFetch.get(origin), delayMs, options.signal);
    lastFetch.set(origin, Date.now());
    fetches++;
    const page = await fetchPage(url, options, isStart);
    if (!page) continue;
    bytes += page.bytes.byteLength;
    if (bytes > maxBytes) return;
    const finalUrl = normalizeUrl(page.url) ?? url;
    fetched.add(url);
    // A redirect the fetcher followed may land on a page already fetched, or off the site.
    if (finalUrl !== url && !isStart && (fetched.has(finalUrl) || (options.sameSite && !sameSite(finalUrl, start)))) {
      continue;
    }
    fetched.add(finalUrl);
    seen.add(finalUrl);
    const format = detectFormat({
      mediaType: page.contentType,
      filename: new URL(finalUrl).pathname,
      bytes: page.bytes,
    });
    if (page.status < 200 || page.status >= 300 || !format) {
      if (isStart) throw unreadable(`${url} answered ${page.status} ${page.contentType ?? ''}`.trim());
      continue;
    }
    let document: ExtractedDocument | undefined;
    if (format === 'html') {
      document = await readHtml(page, finalUrl, options, isStart);
      enqueueLinks(document?.links ?? [], { queue, seen, start, options });
    }
    yielded++;
    yield document ? { ...page, url: finalUrl, document } : { ...page, url: finalUrl };
  }
}

/** robots.txt rules per origin, each fetched once. */
function robotsCache(options: CrawlOptions): (origin: string) => Promise<RobotsRules> {
  const rules = new Map<string, Promise<RobotsRules>>();
  return (origin) => {
    let found = rules.get(origin);
    if (!found) {
      found = loadRobotsRules(origin, {
        fetch: options.fetch,
        userAgent: options.userAgent,
        maxDelayMs: options.maxCrawlDelayMs ?? DEFAULT_MAX_CRAWL_DELAY_MS,
        signal: options.signal,
      });
      rules.set(origin, found);
    }
    return found;
  };
}

/** Queues a page's links not seen before (on the site, with `sameSite`), up to the queue's bound. */
function enqueueLinks(
  links: string[],
  crawl: { queue: string[]; seen: Set<string>; start: string; options: CrawlOptions },
): void {
  const { queue, seen, start, options } = crawl;
  for (const link of links) {
    const next = normalizeUrl(link);
    if (!next || seen.has(next) || (options.sameSite && !sameSite(next, start))) continue;
    if (queue.length >= options.maxPages * QUEUE_PER_PAGE) return;
    seen.add(next);
    queue.push(next);
  }
}

async function fetchPage(url: string, options: CrawlOptions, isStart: boolean): Promise<FetchedPage | null> {
  try {
    return await options.fetch(url, options.signal);
  } catch (error) {
    throwIfAborted(options.signal);
    if (isStart) throw error;
    return null; // a link that fails does not end the crawl
  }
}

async function readHtml(
  page: FetchedPage,
  url: string,
  options: CrawlOptions,
  isStart: boolean,
): Promise<ExtractedDocument | undefined> {
  try {
    return await extractDocument(
      { bytes: page.bytes, format: 'html', url, allowEmpty: true },
      { maxChars: options.maxCharsPerPage ?? DEFAULT_MAX_CHARS_PER_PAGE, maxPages: 1, signal: options.signal },
    );
  } catch (error) {
    throwIfAborted(options.signal);
    if (isStart) throw error;
    return undefined;
  }
}

/**
 * An absolute http(s) URL without its fragment, or null. Nothing else changes (no sorting of the
 * query, no case folding of the path): two spellings of one page may be fetched twice, never one
 * page mistaken for another.
 *
 * @example
 * normalizeUrl('https://example.com/a?b=1#top'); // 'https://example.com/a?b=1'
 * normalizeUrl('mailto:a@example.com'); // null
 */
export function normalizeUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
    parsed.hash = '';
    return parsed.href;
  } catch {
    return null;
  }
}

/** Same host as the start, counting `www.example.com` and `example.com` as one site. */
function sameSite(url: string, start: string): boolean {
  const bare = (host: string) => host.toLowerCase().replace(/^www\./, '');
  return bare(new URL(url).hostname) === bare(new URL(start).hostname);
}

async function waitCrawlDelay(last: number | undefined, delayMs: number, signal: AbortSignal | undefined) {
  if (!last || delayMs <= 0) return;
  const wait = last + delayMs - Date.now();
  if (wait <= 0) return;
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, wait);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw aborted();
}
