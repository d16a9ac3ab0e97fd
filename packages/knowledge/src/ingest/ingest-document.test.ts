import {
  createKnowledgeBase,
  createKnowledgeDocument,
  createTenantWithKey,
  getKnowledgeDocument,
  listKnowledgeChunks,
} from '@agentry/db';
import { errors } from '@agentry/errors';
import type { EmbeddingModel } from '@agentry/llm';
import { createLocalEmbeddingModel } from '@agentry/provider-demo';
import { createInProcessQueue } from '@agentry/queue';
import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKnowledgeSearch,
  DEFAULT_INGEST_LIMITS,
  type IngestDependencies,
  ingestDocument,
  type KnowledgeJobData,
  knowledgeJobId,
  type PageFetcher,
  startIngestionWorker,
} from '../index.ts';

const local = createLocalEmbeddingModel();
const limits = { maxDocumentsPerBase: 100, maxBytesPerTenant: 1 << 20 };
const encode = (text: string) => new TextEncoder().encode(text);

describe.each(testDatabaseKinds())('ingestion on %s', (kind) => {
  let database: TestDatabase;
  let tenantId: string;
  let baseId: string;
  let model: EmbeddingModel = local;
  let fetchPage: PageFetcher = async () => {
    throw new Error('no fetch expected');
  };
  let deps: IngestDependencies;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    tenantId = (await createTenantWithKey(database.db, { name: 'T', key: { prefix: 'sk_t', hash: `ingest-${kind}` } }))
      .tenant.id;
    baseId = (
      await createKnowledgeBase(
        database.db,
        tenantId,
        { name: 'Docs', embeddingModel: 'local/hashing-v1', dimensions: 256 },
        { maxBases: 5 },
      )
    ).id;
    deps = {
      db: database.db,
      embeddingModelFor: async () => model,
      pageFetcherFor: () => fetchPage,
      limits: DEFAULT_INGEST_LIMITS,
    };
  });
  afterAll(() => database?.destroy());

  const add = async (document: { title: string; format?: string; text?: string; url?: string }) =>
    (await createKnowledgeDocument(
      database.db,
      tenantId,
      {
        knowledgeBaseId: baseId,
        title: document.title,
        source: document.url ? 'url' : 'text',
        format: document.format ?? null,
        url: document.url ?? null,
        content: document.text === undefined ? null : encode(document.text),
      },
      limits,
    ))!;

  it('ingests text and Markdown end to end: ready, chunks stored with headings, searchable', async () => {
    const text = await add({ title: 'Returns', format: 'text', text: 'Refunds are paid within 14 days.' });
    const markdown = await add({
      title: 'Guide',
      format: 'markdown',
      text: '# Guide\n\n## Shipping\n\nParcels leave the warehouse every weekday.\n\n## Passwords\n\nReset it from the account page.',
    });
    expect(await ingestDocument(deps, tenantId, text.id)).toBe('ready');
    expect(await ingestDocument(deps, tenantId, markdown.id)).toBe('ready');
    const stored = await getKnowledgeDocument(database.db, tenantId, baseId, markdown.id);
    expect(stored).toMatchObject({ status: 'ready', progress: 1, error: null });
    expect(stored!.chunkCount).toBeGreaterThan(0);
    const chunks = await listKnowledgeChunks(database.db, tenantId, baseId, markdown.id, { limit: 10 });
    expect(chunks.some((chunk) => chunk.headingPath.includes('Shipping'))).toBe(true);
    // The stored text is the chunk's own; the title and headings are only embedded with it.
    expect(chunks.every((chunk) => !chunk.text.startsWith('Guide\n'))).toBe(true);
    const hits = await createKnowledgeSearch({ db: database.db, embeddingModelFor: deps.embeddingModelFor }).search({
      tenantId,
      knowledgeBases: ['Docs'],
      query: 'when does my parcel ship',
      topK: 1,
    });
    expect(hits[0]).toMatchObject({ title: 'Guide', documentId: markdown.id });
  });

  it('a document the ingestion cannot read ends failed with its reason and no chunks', async () => {
    fetchPage = async (url) => ({ url, status: 200, contentType: 'image/png', bytes: new Uint8Array([0x89, 0x50]) });
    const image = await add({ title: 'https://example.com/logo.png', url: 'https://example.com/logo.png' });
    expect(await ingestDocument(deps, tenantId, image.id)).toBe('failed');
    const stored = await getKnowledgeDocument(database.db, tenantId, baseId, image.id);
    expect(stored).toMatchObject({ status: 'failed', chunkCount: 0, error: { code: 'unsupported_document_type' } });
    expect(await listKnowledgeChunks(database.db, tenantId, baseId, image.id, { limit: 10 })).toEqual([]);
  });

  it('a transient embedding failure is retried by the job system and the document ends ready', async () => {
    let failures = 1;
    model = {
      ...local,
      async embed(texts, options) {
        if (failures-- > 0) {
          throw errors.upstream('model_rate_limited', 'Rate limited (429)', { retryable: true });
        }
        return local.embed(texts, options);
      },
    };
    const queue = createInProcessQueue<KnowledgeJobData>();
    const worker = startIngestionWorker({
      deps,
      queue,
      startWorker: (handler, options) => queue.startWorker(handler, options),
      sweepIntervalMs: 0,
    });
    try {
      const document = await add({ title: 'Hours', format: 'text', text: 'We are open from nine to five.' });
      const jobId = knowledgeJobId(document);
      await queue.enqueue(jobId, { tenantId, documentId: document.id });
      await queue.enqueue(jobId, { tenantId, documentId: document.id }); // a duplicate is ignored
      expect(await queue.waitUntilFinished(jobId, 20_000)).toBe('finished');
      expect(failures).toBe(-1); // failed once, then embedded once
      expect(await getKnowledgeDocument(database.db, tenantId, baseId, document.id)).toMatchObject({
        status: 'ready',
        error: null,
      });
    } finally {
      model = local;
      await worker.stop();
      await queue.close();
    }
  });

  it('the sweeper queues again a document a crashed process left behind', async () => {
    const queue = createInProcessQueue<KnowledgeJobData>();
    const worker = startIngestionWorker({
      deps,
      queue,
      startWorker: (handler, options) => queue.startWorker(handler, options),
      sweepIntervalMs: 0,
      staleAfterMs: 0,
    });
    try {
      const orphan = await add({ title: 'Orphan', format: 'text', text: 'Left queued by a crash.' });
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await worker.sweep()).toBeGreaterThanOrEqual(1);
      await queue.waitUntilFinished(knowledgeJobId({ id: orphan.id, generation: 1 }), 20_000);
      expect(await getKnowledgeDocument(database.db, tenantId, baseId, orphan.id)).toMatchObject({
        status: 'ready',
        generation: 1,
      });
    } finally {
      await worker.stop();
      await queue.close();
    }
  });
});
