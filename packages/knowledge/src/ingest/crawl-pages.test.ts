import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createKnowledgeBase,
  createKnowledgeDocument,
  createTenantWithKey,
  deleteKnowledgeDocument,
  getKnowledgeDocument,
  type KnowledgeDocumentView,
  listKnowledgeDocuments,
  requeueKnowledgeDocument,
} from '@agentry/db';
import { createEgressPolicy } from '@agentry/http-tools';
import { createLocalEmbeddingModel } from '@agentry/provider-demo';
import { createInProcessQueue } from '@agentry/queue';
import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createEgressPageFetcher,
  createKnowledgeSearch,
  DEFAULT_INGEST_LIMITS,
  type IngestDependencies,
  ingestDocument,
  type KnowledgeJobData,
  knowledgeJobId,
  startIngestionWorker,
} from '../index.ts';

/** A real HTTP server on loopback: its routes can change between crawls; it records every request. */
interface Site {
  url: string;
  routes: Record<string, string>;
  requests: string[];
  server: Server;
}

const servers: Server[] = [];

async function startSite(routes: Record<string, string>): Promise<Site> {
  const site = { routes, requests: [] as string[] } as Site;
  site.server = createServer((req, res) => {
    const path = req.url ?? '/';
    site.requests.push(path);
    const body = site.routes[path];
    if (body === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const type = path === '/robots.txt' ? 'text/plain' : 'text/html; charset=utf-8';
    res.writeHead(200, { 'content-type': type }).end(body);
  });
  await new Promise<void>((resolve) => site.server.listen(0, '127.0.0.1', resolve));
  servers.push(site.server);
  site.url = `http://127.0.0.1:${(site.server.address() as AddressInfo).port}`;
  return site;
}

afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

const html = (title: string, links: string[], text: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><nav>${links
    .map((href) => `<a href="${href}">${href}</a>`)
    .join(' ')}</nav><article><h1>${title}</h1><p>${text}</p></article></body></html>`;

const local = createLocalEmbeddingModel();
// The platform's guard, widened to loopback as a tenant's allowlist would be: the test sites live there.
const fetchPage = createEgressPageFetcher({
  policy: createEgressPolicy({ allowlist: ['127.0.0.1'] }),
  maxBytes: 1 << 20,
});

describe.each(testDatabaseKinds())('crawls on %s', (kind) => {
  let database: TestDatabase;
  let tenantId: string;
  let deps: IngestDependencies;
  let bases = 0;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    tenantId = (await createTenantWithKey(database.db, { name: 'T', key: { prefix: 'sk_t', hash: `crawl-${kind}` } }))
      .tenant.id;
    deps = {
      db: database.db,
      embeddingModelFor: async () => local,
      pageFetcherFor: () => fetchPage,
      limits: DEFAULT_INGEST_LIMITS,
    };
  });
  afterAll(() => database?.destroy());

  const newBase = async () =>
    (
      await createKnowledgeBase(
        database.db,
        tenantId,
        { name: `Site ${++bases}`, embeddingModel: 'local/hashing-v1', dimensions: 256 },
        { maxBases: 50 },
      )
    ).id;

  const addCrawl = async (baseId: string, url: string, maxPages: number) =>
    (await createKnowledgeDocument(
      database.db,
      tenantId,
      { knowledgeBaseId: baseId, title: url, source: 'url', url, crawl: { max_pages: maxPages, same_site: true } },
      { maxDocumentsPerBase: 100, maxBytesPerTenant: 1 << 24 },
    ))!;

  const documentsOf = async (baseId: string) => listKnowledgeDocuments(database.db, tenantId, baseId, { limit: 100 });

  /** Runs a document's job and every job it queues (a crawl's pages) on the in-process queue. */
  async function ingestAll(document: { id: string; generation: number }, override: Partial<IngestDependencies> = {}) {
    const queue = createInProcessQueue<KnowledgeJobData>();
    const queued: string[] = [];
    const worker = startIngestionWorker({
      deps: {
        ...deps,
        ...override,
        async enqueue({ tenantId: tenant, document: child }) {
          queued.push(knowledgeJobId(child));
          await queue.enqueue(knowledgeJobId(child), { tenantId: tenant, documentId: child.id });
        },
      },
      queue,
      startWorker: (handler, options) => queue.startWorker(handler, options),
      sweepIntervalMs: 0,
    });
    try {
      await queue.enqueue(knowledgeJobId(document), { tenantId, documentId: document.id });
      expect(await queue.waitUntilFinished(knowledgeJobId(document), 30_000)).toBe('finished');
      for (const jobId of queued) expect(await queue.waitUntilFinished(jobId, 30_000)).toBe('finished');
    } finally {
      await worker.stop();
      await queue.close();
    }
    return queued;
  }

  it('a crawl ingests its start page and each allowed page as a child; robots.txt is honoured; a re-run adds nothing', async () => {
    const site = await startSite({
      '/robots.txt': 'User-agent: *\nDisallow: /private\n',
      '/': html('Help centre', ['/guide', '/private'], 'Welcome to the help centre of the company.'),
      '/guide': html('Shipping guide', ['/'], 'Parcels to Iceland travel by puffin express every Tuesday.'),
      '/private': html('Internal', [], 'Staff only salary spreadsheet.'),
    });
    const baseId = await newBase();
    const parent = await addCrawl(baseId, `${site.url}/`, 10);
    await ingestAll(parent);

    const documents = await documentsOf(baseId);
    expect(documents).toHaveLength(2);
    const child = documents.find((d) => d.id !== parent.id)!;
    expect(child).toMatchObject({
      parentId: parent.id,
      source: 'url',
      url: `${site.url}/guide`,
      title: 'Shipping guide',
      status: 'ready',
    });
    expect(documents.find((d) => d.id === parent.id)).toMatchObject({
      status: 'ready',
      title: 'Help centre',
      pages: 2,
      crawl: { max_pages: 10, same_site: true, skipped: 0 },
    });
    expect(site.requests).not.toContain('/private');

    const hits = await createKnowledgeSearch({ db: database.db, embeddingModelFor: deps.embeddingModelFor }).search({
      tenantId,
      knowledgeBases: [baseId],
      query: 'puffin express to Iceland',
      topK: 1,
    });
    expect(hits[0]).toMatchObject({ documentId: child.id, url: `${site.url}/guide` });

    // The same job again (a crash, a retry): no page is added twice.
    expect(await ingestDocument(deps, tenantId, parent.id)).toBe('ready');
    await ingestDocument(deps, tenantId, parent.id);
    expect((await documentsOf(baseId)).map((d) => d.id).sort()).toEqual(documents.map((d) => d.id).sort());
  });

  it('max_pages bounds the crawl, and KNOWLEDGE_MAX_CRAWL_PAGES bounds max_pages', async () => {
    const links = ['/1', '/2', '/3', '/4', '/5'];
    const routes: Record<string, string> = { '/': html('Home', links, 'The home page of a larger site.') };
    for (const link of links) routes[link] = html(`Page ${link}`, links, `Content of page ${link}.`);
    const site = await startSite(routes);

    const baseId = await newBase();
    await ingestAll(await addCrawl(baseId, `${site.url}/`, 3));
    expect(await documentsOf(baseId)).toHaveLength(3);

    const capped = await newBase();
    const parent = await addCrawl(capped, `${site.url}/`, 5);
    await ingestAll(parent, { limits: { ...DEFAULT_INGEST_LIMITS, maxCrawlPages: 2 } });
    expect(await documentsOf(capped)).toHaveLength(2);
    expect(await getKnowledgeDocument(database.db, tenantId, capped, parent.id)).toMatchObject({ pages: 2 });
  });

  it('a full base: the pages that do not fit are counted in crawl.skipped, the start page is still ready', async () => {
    const links = ['/a', '/b', '/c'];
    const routes: Record<string, string> = { '/': html('Home', links, 'A home page with three links.') };
    for (const link of links) routes[link] = html(`Page ${link}`, [], `Text of ${link}.`);
    const site = await startSite(routes);
    const baseId = await newBase();
    const parent = await addCrawl(baseId, `${site.url}/`, 10);
    await ingestAll(parent, { limits: { ...DEFAULT_INGEST_LIMITS, maxDocumentsPerBase: 2 } });
    const documents = await documentsOf(baseId);
    expect(documents).toHaveLength(2);
    expect(documents.find((d) => d.id === parent.id)).toMatchObject({
      status: 'ready',
      pages: 4,
      crawl: { skipped: 2 },
    });
  });

  it('a resync re-crawls: existing pages are queued again (not duplicated), new pages are added; deleting the start page deletes its pages', async () => {
    const site = await startSite({
      '/': html('Docs', ['/old'], 'Documentation home.'),
      '/old': html('Old page', [], 'The old page speaks of lighthouses.'),
      '/new': html('New page', [], 'The new page speaks of windmills.'),
    });
    const baseId = await newBase();
    const parent = await addCrawl(baseId, `${site.url}/`, 10);
    await ingestAll(parent);
    const before = await documentsOf(baseId);
    const old = before.find((d) => d.url === `${site.url}/old`)!;
    expect(old).toMatchObject({ status: 'ready', generation: 0 });

    site.routes['/'] = html('Docs', ['/old', '/new'], 'Documentation home, now with a new page.');
    const requeued = (await requeueKnowledgeDocument(database.db, tenantId, baseId, parent.id))!;
    await ingestAll(requeued);
    const after = await documentsOf(baseId);
    expect(after).toHaveLength(3);
    expect(after.find((d) => d.id === old.id)).toMatchObject({ status: 'ready', generation: 1 });
    expect(after.find((d) => d.url === `${site.url}/new`)).toMatchObject({ parentId: parent.id, status: 'ready' });

    expect(await deleteKnowledgeDocument(database.db, tenantId, baseId, parent.id)).toBe(true);
    expect(await documentsOf(baseId)).toEqual([] as KnowledgeDocumentView[]);
  });
});
