import robotsParserModule from 'robots-parser';
import type { PageFetcher } from '../types.ts';

/** What robots.txt lets a crawler do on one origin. */
export interface RobotsRules {
  isAllowed(url: string): boolean;
  /** Milliseconds to wait between fetches (robots.txt `Crawl-delay`), 0 without one. */
  delayMs: number;
}

// robots-parser is CommonJS (`module.exports = fn`) while its types declare a default export; the
// default import is the function at run time, whatever module resolution the type checker uses
// (NodeNext here, Bundler in the dashboard's check, which reaches this package through the API).
type RobotsParser = (
  url: string,
  robotstxt: string,
) => {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
};
const robotsParser = robotsParserModule as unknown as RobotsParser;

const ALLOW_ALL: RobotsRules = { isAllowed: () => true, delayMs: 0 };
const DISALLOW_ALL: RobotsRules = { isAllowed: () => false, delayMs: 0 };

/**
 * An origin's robots.txt rules for `userAgent`, fetched once through the crawl's fetcher. As RFC
 * 9309 says: a missing file (4xx) allows everything; a server error (5xx) or an unreachable file
 * disallows the whole site.
 *
 * @example
 * const rules = await loadRobotsRules('https://example.com', { fetch, userAgent: 'AgentryBot', maxDelayMs: 2000 });
 * rules.isAllowed('https://example.com/private/x'); // false when robots.txt disallows /private/
 */
export async function loadRobotsRules(
  origin: string,
  options: { fetch: PageFetcher; userAgent: string; maxDelayMs: number; signal?: AbortSignal | undefined },
): Promise<RobotsRules> {
  const robotsUrl = `${origin}/robots.txt`;
  let status: number;
  let body: Uint8Array;
  try {
    ({ status, bytes: body } = await options.fetch(robotsUrl, options.signal));
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return DISALLOW_ALL;
  }
  if (status >= 500) return DISALLOW_ALL;
  if (status < 200 || status >= 300) return ALLOW_ALL; // unavailable (4xx, an unfollowed redirect)
  const robots = robotsParser(robotsUrl, new TextDecoder().decode(body));
  const delaySeconds = robots.getCrawlDelay(options.userAgent) ?? 0;
  return {
    isAllowed: (url) => robots.isAllowed(url, options.userAgent) !== false,
    delayMs: Math.min(Math.max(0, delaySeconds * 1000) || 0, options.maxDelayMs),
  };
}
