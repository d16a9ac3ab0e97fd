import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAppError } from '@agentry/errors';
import { afterEach, describe, expect, it } from 'vitest';
import { makePdf } from '../test-support/make-documents.ts';
import type { CrawlOptions, FetchedPage, PageFetcher } from '../types.ts';
import { crawlSite } from './crawl-site.ts';

type Route = { status?: number; type?: string; body: string | Uint8Array; location?: string };

/** A real HTTP server per made-up host name; the test fetcher routes each host to its server. */
interface Site {
  host: string;
  port: number;
  routes: Record<string, Route>;
  requests: string[];
  server: Server;
}

const sites = new Map<string, Site>();

async function startSite(host: string, routes: Record<string, Route>): Promise<Site> {
  const site = { host, routes, requests: [] as string[] } as Site;
  site.server = createServer((req, res) => {
    const path = req.url ?? '/';
    site.requests.push(path);
    const route = site.routes[path];
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res
      .writeHead(route.status ?? 200, {
        'content-type': route.type ?? 'text/html; charset=utf-8',
        ...(route.location ? { location: route.location } : {}),
      })
      .end(route.body);
  });
  await new Promise<void>((resolve) => site.server.listen(0, '127.0.0.1', resolve));
  site.port = (site.server.address() as AddressInfo).port;
  sites.set(host, site);
  return site;
}

afterEach(async () => {
  for (const site of sites.values()) await new Promise((resolve) => site.server.close(resolve));
  sites.clear();
});

/** Fetches through the real servers (following redirects), as the egress guard's fetcher would. */
const fetcher: PageFetcher = async (url, signal) => {
  const target = new URL(url);
  const site = sites.get(target.hostname);
  if (!site) throw Object.assign(new Error(`unreachable ${target.hostname}`), { code: 'ECONNREFUSED' });
  const response = await fetch(`http://127.0.0.1:${site.port}${target.pathname}${target.search}`, { signal });
  // Redirects stay on the test server: map the final address back to the made-up host.
  const final = new URL(response.url);
  return {
    url: `${target.protocol}//${target.host}${final.pathname}${final.search}`,
    status: response.status,
    contentType: response.headers.get('content-type'),
    bytes: new Uint8Array(await response.arrayBuffer()),
  };
};

const page = (title: string, links: string[], text = `${title} explains how our product works for customers.`) =>
  `<!doctype html><html><head><title>${title}</title></head><body><nav>${links
    .map((href) => `<a href="${href}">${href}</a>`)
    .join(' ')}</nav><article><h1>${title}</h1><p>${text.repeat(5)}</p></article></body></html>`;

const options = (overrides: Partial<CrawlOptions> = {}): CrawlOptions => ({
  maxPages: 20,
  sameSite: true,
  fetch: fetcher,
  userAgent: 'AgentryBot',
  ...overrides,
});

async function crawl(start: string, opts: CrawlOptions): Promise<FetchedPage[]> {
  const pages: FetchedPage[] = [];
  for await (const fetched of crawlSite(start, opts)) pages.push(fetched);
  return pages;
}

describe('crawlSite', () => {
  it('honours robots.txt disallow rules, fetching robots.txt once per site', async () => {
    const site = await startSite('site.test', {
      '/robots.txt': {
        type: 'text/plain',
        body: 'User-agent: *\nDisallow: /private\n\nUser-agent: AgentryBot\nDisallow: /bots-only-no\n',
      },
      '/': { body: page('Home', ['/a', '/private/x', '/b', '/bots-only-no']) },
      '/a': { body: page('A', ['/']) },
      '/b': { body: page('B', []) },
      '/private/x': { body: page('Secret', []) },
      '/bots-only-no': { body: page('No', []) },
    });
    const pages = await crawl('http://site.test/', options({ userAgent: 'OtherBot/1.0' }));
    expect(pages.map((p) => p.url)).toEqual([
      'http://site.test/',
      'http://site.test/a',
      'http://site.test/b',
      'http://site.test/bots-only-no',
    ]);
    expect(site.requests.filter((r) => r === '/robots.txt')).toHaveLength(1);
    expect(site.requests).not.toContain('/private/x');
    // Its own group applies to AgentryBot (not `*`): /private is allowed for it, /bots-only-no is not.
    site.requests.length = 0;
    const own = await crawl('http://site.test/', options());
    expect(own.map((p) => new URL(p.url).pathname)).toEqual(['/', '/a', '/private/x', '/b']);
    expect(site.requests).not.toContain('/bots-only-no');
    expect(pages[0]!.document?.title).toBe('Home');
  });

  it('stays on the start host and its www. twin when sameSite', async () => {
    await startSite('site.test', { '/': { body: page('Home', ['http://www.site.test/w', 'http://other.test/o']) } });
    await startSite('www.site.test', { '/w': { body: page('W', []) } });
    const other = await startSite('other.test', { '/o': { body: page('O', []) } });
    expect((await crawl('http://site.test/', options())).map((p) => p.url)).toEqual([
      'http://site.test/',
      'http://www.site.test/w',
    ]);
    expect(other.requests).toEqual([]);
    const all = await crawl('http://site.test/', options({ sameSite: false }));
    expect(all.map((p) => p.url)).toEqual(['http://site.test/', 'http://www.site.test/w', 'http://other.test/o']);
  });

  it('yields at most maxPages pages, breadth-first', async () => {
    const routes: Record<string, Route> = {};
    for (let i = 0; i < 30; i++) routes[`/p${i}`] = { body: page(`P${i}`, [`/p${2 * i + 1}`, `/p${2 * i + 2}`]) };
    await startSite('site.test', routes);
    const pages = await crawl('http://site.test/p0', options({ maxPages: 5 }));
    expect(pages.map((p) => new URL(p.url).pathname)).toEqual(['/p0', '/p1', '/p2', '/p3', '/p4']);
  });

  it('visits each page once in a cycle, fragments and all', async () => {
    const site = await startSite('site.test', {
      '/': { body: page('Home', ['/a#x', '/a#y', '/a', '/']) },
      '/a': { body: page('A', ['/#top', '/a', 'http://site.test/']) },
    });
    const pages = await crawl('http://site.test/#start', options());
    expect(pages.map((p) => p.url)).toEqual(['http://site.test/', 'http://site.test/a']);
    expect(site.requests).toEqual(['/robots.txt', '/', '/a']);
  });

  it('counts a page reached through a redirect once, under its final address', async () => {
    const site = await startSite('site.test', {
      '/': { body: page('Home', ['/old', '/a']) },
      '/old': { status: 301, location: '/a', body: '' },
      '/a': { body: page('A', []) },
    });
    const pages = await crawl('http://site.test/', options());
    expect(pages.map((p) => p.url)).toEqual(['http://site.test/', 'http://site.test/a']);
    expect(site.requests).toEqual(['/robots.txt', '/', '/old', '/a']);
  });

  it('yields PDFs it links to, skips content it cannot read and broken links, follows links only from HTML', async () => {
    const pdf = await makePdf([{ heading: 'Manual', lines: ['Read me.'] }]);
    await startSite('site.test', {
      '/': { body: page('Home', ['/manual.pdf', '/logo.png', '/missing', '/notes.txt']) },
      '/manual.pdf': { type: 'application/pdf', body: pdf },
      '/logo.png': { type: 'image/png', body: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) },
      '/notes.txt': { type: 'text/plain', body: 'See http://site.test/hidden for more.' },
    });
    const pages = await crawl('http://site.test/', options());
    expect(pages.map((p) => [new URL(p.url).pathname, p.contentType])).toEqual([
      ['/', 'text/html; charset=utf-8'],
      ['/manual.pdf', 'application/pdf'],
      ['/notes.txt', 'text/plain'],
    ]);
    expect(pages[1]!.document).toBeUndefined();
  });

  it('treats a missing robots.txt as allowing, a failing or unreachable one as disallowing the site', async () => {
    await startSite('site.test', { '/': { body: page('Home', ['http://other.test/']) } });
    expect(await crawl('http://site.test/', options({ sameSite: false }))).toHaveLength(1); // other.test unreachable
    sites.get('site.test')!.routes['/robots.txt'] = { status: 503, type: 'text/plain', body: 'down' };
    await expect(crawl('http://site.test/', options())).rejects.toMatchObject({ code: 'document_unreadable' });
  });

  it('fails when the start page cannot be fetched or read', async () => {
    await startSite('site.test', { '/robots.txt': { status: 404, body: '' } });
    const error = await crawl('http://site.test/nope', options()).catch((e: unknown) => e);
    expect(isAppError(error) && error.code).toBe('document_unreadable');
    await expect(crawl('mailto:x@y.z', options())).rejects.toMatchObject({ code: 'document_unreadable' });
  });

  it('waits a bounded Crawl-delay between fetches', async () => {
    const site = await startSite('site.test', {
      '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nCrawl-delay: 30\n' },
      '/': { body: page('Home', ['/a', '/b']) },
      '/a': { body: page('A', []) },
      '/b': { body: page('B', []) },
    });
    const began = Date.now();
    const pages = await crawl('http://site.test/', options({ maxCrawlDelayMs: 150 }));
    expect(pages).toHaveLength(3);
    // Two waits of 150 ms (not 30 s) between three page fetches.
    expect(Date.now() - began).toBeGreaterThanOrEqual(290);
    expect(Date.now() - began).toBeLessThan(10_000);
    expect(site.requests).toHaveLength(4);
  });

  it('stops at maxBytes and when the signal aborts', async () => {
    const routes: Record<string, Route> = { '/': { body: page('Home', ['/a', '/b', '/c']) } };
    for (const name of ['a', 'b', 'c']) routes[`/${name}`] = { body: page(name, []) };
    await startSite('site.test', routes);
    const size = new TextEncoder().encode(routes['/']!.body as string).byteLength;
    expect(await crawl('http://site.test/', options({ maxBytes: size + 10 }))).toHaveLength(1);
    const controller = new AbortController();
    const seen: string[] = [];
    const run = async () => {
      for await (const fetched of crawlSite('http://site.test/', options({ signal: controller.signal }))) {
        seen.push(fetched.url);
        controller.abort();
      }
    };
    await expect(run()).rejects.toMatchObject({ code: 'aborted' });
    expect(seen).toEqual(['http://site.test/']);
  });
});
