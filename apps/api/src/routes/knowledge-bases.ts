import { createHash } from 'node:crypto';
import {
  CreateKnowledgeBaseBody,
  CreateKnowledgeDocumentBody,
  KnowledgeSearchBody,
  PatchKnowledgeBaseBody,
} from '@agentry/contract/schemas';
import {
  createKnowledgeBase,
  createKnowledgeDocument,
  deleteKnowledgeBase,
  deleteKnowledgeDocument,
  getKnowledgeBase,
  getKnowledgeDocument,
  isId,
  type KnowledgeBaseWithCounts,
  type KnowledgeChunkView,
  type KnowledgeDocumentView,
  listKnowledgeBases,
  listKnowledgeChunks,
  listKnowledgeDocuments,
  requeueKnowledgeDocument,
  updateKnowledgeBase,
} from '@agentry/db';
import { errors } from '@agentry/errors';
import { checkEgressTarget, withAllowlist } from '@agentry/http-tools';
import {
  DEFAULT_KNOWLEDGE_EMBEDDING,
  detectFormat,
  type KnowledgeJobData,
  type KnowledgeSettings,
  knowledgeJobId,
  type StoreKnowledgeSearch,
} from '@agentry/knowledge';
import type { JobQueue } from '@agentry/queue';
import { type Context, Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { audit } from '../http/audit.ts';
import type { AuthVariables } from '../http/auth.ts';
import { readJson } from '../http/body.ts';
import { doc, PAGE_QUERY, type ParamDoc, ref } from '../http/openapi.ts';
import { pageOf, readPage } from '../http/pagination.ts';

/** What the knowledge routes need besides the common dependencies. */
export interface KnowledgeApiDeps {
  search: StoreKnowledgeSearch;
  queue: JobQueue<KnowledgeJobData>;
  settings: KnowledgeSettings;
  /** The `provider/model` and dimensions of a base that names `requested` (or none): throws when unusable. */
  embeddingFor?(tenantId: string, requested: string | undefined): Promise<{ spec: string; dimensions: number }>;
}

/** The path uploads go to: its body bound is the file limit, not the JSON one. */
export const KNOWLEDGE_DOCUMENTS_PATH = /^\/v1\/knowledge-bases\/[^/]+\/documents$/;
/** Room for the multipart envelope and the other fields around the file. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

export function documentTooLarge(limitBytes: number) {
  return errors.of({
    code: 'document_too_large',
    message: `A document may have at most ${limitBytes} bytes`,
    category: 'user',
    details: { limit_bytes: limitBytes },
  });
}

const baseParam: Record<string, ParamDoc> = {
  id: {
    description: 'The knowledge base’s id',
    resource: 'knowledge_base',
    schema: { type: 'string', format: 'uuid' },
  },
};
const documentParams: Record<string, ParamDoc> = {
  ...baseParam,
  documentId: {
    description: 'The document’s id',
    resource: 'knowledge_document',
    schema: { type: 'string', format: 'uuid' },
  },
};

function baseView(base: KnowledgeBaseWithCounts) {
  return {
    object: 'knowledge_base' as const,
    id: base.id,
    name: base.name,
    description: base.description,
    embedding_model: base.embeddingModel,
    document_count: base.documentCount,
    chunk_count: base.chunkCount,
    bytes: base.bytes,
    created_at: base.createdAt.toISOString(),
    updated_at: base.updatedAt.toISOString(),
  };
}

function documentView(document: KnowledgeDocumentView) {
  return {
    object: 'knowledge_document' as const,
    id: document.id,
    knowledge_base_id: document.knowledgeBaseId,
    parent_id: document.parentId,
    title: document.title,
    source: document.source,
    format: document.format,
    filename: document.filename,
    url: document.url,
    status: document.status,
    progress: Math.min(1, Math.max(0, document.progress)),
    error: document.error ?? null,
    bytes: document.bytes,
    pages: document.pages,
    chunk_count: document.chunkCount,
    crawl: document.crawl ?? null,
    created_at: document.createdAt.toISOString(),
    updated_at: document.updatedAt.toISOString(),
  };
}

function chunkView(chunk: KnowledgeChunkView) {
  return {
    object: 'knowledge_chunk' as const,
    id: chunk.id,
    document_id: chunk.documentId,
    knowledge_base_id: chunk.knowledgeBaseId,
    title: chunk.title,
    heading_path: chunk.headingPath,
    page: chunk.page,
    url: chunk.url,
    text: chunk.text,
  };
}

/**
 * `/v1/knowledge-bases`: a tenant's bases, their documents (uploaded as multipart, sent as text,
 * or fetched from a URL through the egress guard) ingested in the background, a chunk preview and
 * hybrid search. Every limit is checked in the transaction that inserts.
 */
export function knowledgeBaseRoutes(deps: ApiDeps) {
  const app = new Hono<{ Variables: AuthVariables }>();
  const knowledge = () => {
    if (!deps.knowledge) throw errors.unavailable('embeddings_not_configured', 'Knowledge bases are not set up here');
    return deps.knowledge;
  };
  const baseOf = async (c: Context<{ Variables: AuthVariables }>) => {
    const id = c.req.param('id') ?? '';
    const base = isId(id) ? await getKnowledgeBase(deps.db, c.var.tenant.id, id) : undefined;
    if (!base) throw errors.notFound('knowledge_base', id);
    return base;
  };
  const documentOf = async (c: Context<{ Variables: AuthVariables }>) => {
    const base = await baseOf(c);
    const id = c.req.param('documentId') ?? '';
    const document = isId(id) ? await getKnowledgeDocument(deps.db, c.var.tenant.id, base.id, id) : undefined;
    if (!document) throw errors.notFound('knowledge_document', id);
    return { base, document };
  };

  app.post(
    '/',
    doc({
      operationId: 'createKnowledgeBase',
      tag: 'Knowledge bases',
      summary: 'Create a knowledge base',
      description:
        'Its embedding model is fixed from now on (vectors of different models do not compare). Names are unique per tenant.',
      auth: 'tenant',
      body: { schema: CreateKnowledgeBaseBody, example: { name: 'Help center', description: 'Public help articles' } },
      responses: { 201: { description: 'Created', schema: ref('KnowledgeBase') } },
      errors: ['knowledge_quota_exceeded', 'embeddings_not_configured'],
    }),
  );
  app.post('/', async (c) => {
    const body = await readJson(c, CreateKnowledgeBaseBody);
    const settings = knowledge();
    const embedding = settings.embeddingFor
      ? await settings.embeddingFor(c.var.tenant.id, body.embedding_model)
      : defaultEmbedding(body.embedding_model);
    const base = await createKnowledgeBase(
      deps.db,
      c.var.tenant.id,
      {
        name: body.name,
        description: body.description ?? null,
        embeddingModel: embedding.spec,
        dimensions: embedding.dimensions,
      },
      { maxBases: settings.settings.maxBasesPerTenant },
    );
    await audit(deps.db, c, 'knowledge_base.created', { type: 'knowledge_base', id: base.id }, { name: base.name });
    return c.json(baseView(base), 201);
  });

  app.get(
    '/',
    doc({
      operationId: 'listKnowledgeBases',
      tag: 'Knowledge bases',
      summary: 'List knowledge bases, newest first',
      auth: 'tenant',
      query: PAGE_QUERY,
      responses: { 200: { description: 'A page of bases', schema: ref('KnowledgeBaseList') } },
      errors: ['invalid_query'],
    }),
  );
  app.get('/', async (c) => {
    const page = readPage(c);
    const rows = await listKnowledgeBases(deps.db, c.var.tenant.id, { ...page, limit: page.limit + 1 });
    return c.json(pageOf(rows, page, baseView));
  });

  app.get(
    '/:id',
    doc({
      operationId: 'getKnowledgeBase',
      tag: 'Knowledge bases',
      summary: 'A knowledge base with its counts',
      auth: 'tenant',
      path: baseParam,
      responses: { 200: { description: 'The base', schema: ref('KnowledgeBase') } },
      errors: ['knowledge_base_not_found'],
    }),
  );
  app.get('/:id', async (c) => c.json(baseView(await baseOf(c))));

  app.patch(
    '/:id',
    doc({
      operationId: 'updateKnowledgeBase',
      tag: 'Knowledge bases',
      summary: 'Rename a knowledge base or change its description',
      auth: 'tenant',
      path: baseParam,
      body: { schema: PatchKnowledgeBaseBody, example: { description: 'Help articles and FAQ' } },
      responses: { 200: { description: 'Changed', schema: ref('KnowledgeBase') } },
      errors: ['knowledge_base_not_found'],
    }),
  );
  app.patch('/:id', async (c) => {
    const id = c.req.param('id');
    const body = await readJson(c, PatchKnowledgeBaseBody);
    const base = isId(id) ? await updateKnowledgeBase(deps.db, c.var.tenant.id, id, body) : undefined;
    if (!base) throw errors.notFound('knowledge_base', id);
    await audit(deps.db, c, 'knowledge_base.updated', { type: 'knowledge_base', id }, { ...body });
    return c.json(baseView(base));
  });

  app.delete(
    '/:id',
    doc({
      operationId: 'deleteKnowledgeBase',
      tag: 'Knowledge bases',
      summary: 'Delete a knowledge base with its documents and chunks',
      auth: 'tenant',
      path: baseParam,
      responses: { 204: { description: 'Deleted' } },
      errors: ['knowledge_base_not_found'],
    }),
  );
  app.delete('/:id', async (c) => {
    const id = c.req.param('id');
    if (!isId(id) || !(await deleteKnowledgeBase(deps.db, c.var.tenant.id, id))) {
      throw errors.notFound('knowledge_base', id);
    }
    await audit(deps.db, c, 'knowledge_base.deleted', { type: 'knowledge_base', id });
    return c.body(null, 204);
  });

  app.post(
    '/:id/documents',
    doc({
      operationId: 'createKnowledgeDocument',
      tag: 'Knowledge bases',
      summary: 'Add a document: upload a file (multipart), send text, or give a URL (optionally crawled)',
      description:
        'As `multipart/form-data`: a field `file` (PDF, DOCX, HTML, Markdown, text or CSV) and an optional `title`. As JSON: `{text, title, format?}` or `{url, title?, crawl?}` — the URL is checked against the egress guard at once. Answers 202 with the document `queued`; ingestion runs in the background (poll the document for `status` and `progress`).',
      auth: 'tenant',
      path: baseParam,
      body: {
        schema: CreateKnowledgeDocumentBody,
        example: { title: 'Refunds', text: 'Refunds are paid within 14 days.' },
      },
      responses: { 202: { description: 'Queued', schema: ref('KnowledgeDocument') } },
      errors: [
        'knowledge_base_not_found',
        'unsupported_document_type',
        'unsupported_media_type',
        'document_too_large',
        'knowledge_base_full',
        'knowledge_quota_exceeded',
        'egress_forbidden_scheme',
        'egress_forbidden_address',
        'egress_dns_failed',
      ],
    }),
  );
  app.post('/:id/documents', async (c) => {
    const settings = knowledge();
    const base = await baseOf(c);
    const tenant = c.var.tenant;
    const type = c.req.header('content-type') ?? '';
    const document = /^multipart\/form-data/i.test(type)
      ? await fileDocument(c, settings.settings.maxFileBytes)
      : await jsonDocument(c, deps, settings.settings);
    const created = await createKnowledgeDocument(
      deps.db,
      tenant.id,
      { knowledgeBaseId: base.id, ...document },
      {
        maxDocumentsPerBase: settings.settings.maxDocumentsPerBase,
        maxBytesPerTenant: settings.settings.maxBytesPerTenant,
      },
    );
    if (!created) throw errors.notFound('knowledge_base', base.id);
    await settings.queue.enqueue(knowledgeJobId(created), { tenantId: tenant.id, documentId: created.id });
    await audit(
      deps.db,
      c,
      'knowledge_document.created',
      { type: 'knowledge_document', id: created.id },
      { knowledge_base_id: base.id, source: created.source },
    );
    return c.json(documentView(created), 202);
  });

  app.get(
    '/:id/documents',
    doc({
      operationId: 'listKnowledgeDocuments',
      tag: 'Knowledge bases',
      summary: 'A base’s documents with their ingestion status, oldest first',
      auth: 'tenant',
      path: baseParam,
      query: PAGE_QUERY,
      responses: { 200: { description: 'A page of documents', schema: ref('KnowledgeDocumentList') } },
      errors: ['knowledge_base_not_found', 'invalid_query'],
    }),
  );
  app.get('/:id/documents', async (c) => {
    const base = await baseOf(c);
    const page = readPage(c);
    const rows = await listKnowledgeDocuments(deps.db, c.var.tenant.id, base.id, {
      limit: page.limit + 1,
      ...(page.before ? { after: page.before } : {}),
    });
    return c.json(pageOf(rows, page, documentView));
  });

  app.get(
    '/:id/documents/:documentId',
    doc({
      operationId: 'getKnowledgeDocument',
      tag: 'Knowledge bases',
      summary: 'A document: status, progress, error, counts',
      auth: 'tenant',
      path: documentParams,
      responses: { 200: { description: 'The document', schema: ref('KnowledgeDocument') } },
      errors: ['knowledge_base_not_found', 'knowledge_document_not_found'],
    }),
  );
  app.get('/:id/documents/:documentId', async (c) => c.json(documentView((await documentOf(c)).document)));

  app.delete(
    '/:id/documents/:documentId',
    doc({
      operationId: 'deleteKnowledgeDocument',
      tag: 'Knowledge bases',
      summary: 'Delete a document and its chunks',
      auth: 'tenant',
      path: documentParams,
      responses: { 204: { description: 'Deleted' } },
      errors: ['knowledge_base_not_found', 'knowledge_document_not_found'],
    }),
  );
  app.delete('/:id/documents/:documentId', async (c) => {
    const { base, document } = await documentOf(c);
    if (!(await deleteKnowledgeDocument(deps.db, c.var.tenant.id, base.id, document.id))) {
      throw errors.notFound('knowledge_document', document.id);
    }
    await audit(deps.db, c, 'knowledge_document.deleted', { type: 'knowledge_document', id: document.id });
    return c.body(null, 204);
  });

  app.post(
    '/:id/documents/:documentId/resync',
    doc({
      operationId: 'resyncKnowledgeDocument',
      tag: 'Knowledge bases',
      summary: 'Fetch a URL document again and re-index it',
      description:
        'The old chunks stay searchable until the new ones replace them in one transaction. Files and text: 409 `document_not_resyncable`.',
      auth: 'tenant',
      path: documentParams,
      responses: { 202: { description: 'Queued', schema: ref('KnowledgeDocument') } },
      errors: ['knowledge_base_not_found', 'knowledge_document_not_found', 'document_not_resyncable'],
    }),
  );
  app.post('/:id/documents/:documentId/resync', async (c) => {
    const settings = knowledge();
    const { base, document } = await documentOf(c);
    const queued = await requeueKnowledgeDocument(deps.db, c.var.tenant.id, base.id, document.id);
    if (!queued) throw errors.notFound('knowledge_document', document.id);
    await settings.queue.enqueue(knowledgeJobId(queued), { tenantId: c.var.tenant.id, documentId: queued.id });
    await audit(deps.db, c, 'knowledge_document.resynced', { type: 'knowledge_document', id: queued.id });
    return c.json(documentView(queued), 202);
  });

  app.get(
    '/:id/documents/:documentId/chunks',
    doc({
      operationId: 'listKnowledgeChunks',
      tag: 'Knowledge bases',
      summary: 'A document’s chunks in order (a preview of what search sees)',
      auth: 'tenant',
      path: documentParams,
      query: {
        limit: PAGE_QUERY.limit!,
        cursor: { description: 'The previous page’s `next_cursor`', schema: { type: 'string' } },
      },
      responses: { 200: { description: 'A page of chunks', schema: ref('KnowledgeChunkList') } },
      errors: ['knowledge_base_not_found', 'knowledge_document_not_found', 'invalid_query'],
    }),
  );
  app.get('/:id/documents/:documentId/chunks', async (c) => {
    const { base, document } = await documentOf(c);
    const { limit, after } = chunkPage(c);
    const rows = await listKnowledgeChunks(deps.db, c.var.tenant.id, base.id, document.id, {
      limit: limit + 1,
      ...(after !== undefined ? { after } : {}),
    });
    const items = rows.slice(0, limit);
    return c.json({
      object: 'list',
      data: items.map(chunkView),
      next_cursor: rows.length > limit ? String(items.at(-1)!.index) : null,
    });
  });

  app.post(
    '/:id/search',
    doc({
      operationId: 'searchKnowledgeBase',
      tag: 'Knowledge bases',
      summary: 'Search a base (vector similarity fused with full-text rank)',
      description:
        'Only chunks of `ready` documents are searched. `vector_search` says how vectors were compared: `pgvector`, or the exact search built in.',
      auth: 'tenant',
      path: baseParam,
      body: { schema: KnowledgeSearchBody, example: { query: 'How long do refunds take?', top_k: 5 } },
      responses: { 200: { description: 'The best chunks', schema: ref('KnowledgeSearchResult') } },
      errors: ['knowledge_base_not_found', 'embeddings_not_configured'],
    }),
  );
  app.post('/:id/search', async (c) => {
    const settings = knowledge();
    const base = await baseOf(c);
    const body = await readJson(c, KnowledgeSearchBody);
    const hits = await settings.search.search({
      tenantId: c.var.tenant.id,
      knowledgeBases: [base.id],
      query: body.query,
      topK: body.top_k,
      signal: c.req.raw.signal,
    });
    return c.json({
      object: 'list' as const,
      data: hits.map((hit) => ({
        object: 'knowledge_chunk' as const,
        id: hit.chunkId,
        document_id: hit.documentId,
        knowledge_base_id: hit.knowledgeBaseId,
        title: hit.title,
        heading_path: hit.headingPath,
        page: hit.page,
        url: hit.url,
        text: hit.text,
        score: hit.score,
      })),
      vector_search: await settings.search.vectorSearch(),
    });
  });

  return app;
}

function defaultEmbedding(requested: string | undefined) {
  if (requested !== undefined && requested !== DEFAULT_KNOWLEDGE_EMBEDDING.spec) {
    throw errors.validation('Unknown embedding model', [
      {
        path: '/embedding_model',
        code: 'unknown_model',
        message: `"${requested.slice(0, 200)}" is not an embedding model of this platform`,
        hint: `Use ${DEFAULT_KNOWLEDGE_EMBEDDING.spec}`,
      },
    ]);
  }
  return DEFAULT_KNOWLEDGE_EMBEDDING;
}

function chunkPage(c: Context): { limit: number; after?: number } {
  const rawLimit = c.req.query('limit');
  const limit = rawLimit === undefined ? 20 : Number(rawLimit);
  const cursor = c.req.query('cursor');
  const after = cursor === undefined ? undefined : Number(cursor);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw errors.badRequest('invalid_query', '`limit` must be a whole number from 1 to 100', { parameter: 'limit' });
  }
  if (after !== undefined && (!Number.isInteger(after) || after < 0)) {
    throw errors.badRequest('invalid_query', '`cursor` is not a cursor this API returned', { parameter: 'cursor' });
  }
  return { limit, ...(after !== undefined ? { after } : {}) };
}

/** A multipart upload: the size is bounded by the body limit before anything is buffered. */
async function fileDocument(c: Context, maxFileBytes: number) {
  const declared = Number(c.req.header('content-length') ?? 0);
  if (declared > maxFileBytes + MULTIPART_OVERHEAD_BYTES) throw documentTooLarge(maxFileBytes);
  const form = await c.req.parseBody().catch(() => {
    throw errors.badRequest('unsupported_media_type', 'The body is not valid multipart/form-data');
  });
  const file = form.file;
  if (!(file instanceof File)) {
    throw errors.validation('A document upload needs a file', [
      { path: '/file', code: 'required', message: 'Send the document in the multipart field `file`' },
    ]);
  }
  if (file.size > maxFileBytes) throw documentTooLarge(maxFileBytes);
  const bytes = new Uint8Array(await file.arrayBuffer());
  const format = detectFormat({ filename: file.name, mediaType: file.type, bytes });
  if (!format) {
    throw errors.badRequest('unsupported_document_type', 'Upload a PDF, DOCX, HTML, Markdown, text or CSV document');
  }
  const title =
    typeof form.title === 'string' && form.title.trim() !== '' ? form.title.trim().slice(0, 300) : file.name;
  return {
    title: title || 'Untitled',
    source: 'file' as const,
    format,
    filename: file.name.slice(0, 255) || null,
    content: bytes,
    contentHash: sha256(bytes),
  };
}

async function jsonDocument(c: Context<{ Variables: AuthVariables }>, deps: ApiDeps, settings: KnowledgeSettings) {
  // Text sent as JSON is bounded like a file (plus room for its escaping), not by the 1 MiB JSON bound.
  const body = await readJson(c, CreateKnowledgeDocumentBody, {
    maxBytes: settings.maxFileBytes + MULTIPART_OVERHEAD_BYTES,
    tooLarge: () => documentTooLarge(settings.maxFileBytes),
  });
  const maxCrawlPages = settings.maxCrawlPages;
  if ('text' in body) {
    const bytes = new TextEncoder().encode(body.text);
    if (bytes.byteLength > settings.maxFileBytes) throw documentTooLarge(settings.maxFileBytes);
    return {
      title: body.title,
      source: 'text' as const,
      format: body.format ?? 'text',
      content: bytes,
      contentHash: sha256(bytes),
    };
  }
  // Refused now rather than failing later in the background: a private address is the caller's mistake.
  await checkEgressTarget(new URL(body.url), withAllowlist(deps.egress, c.var.tenant.egressAllowlist), {
    hop: 0,
    signal: AbortSignal.timeout(10_000),
  });
  return {
    title: body.title ?? body.url,
    source: 'url' as const,
    url: body.url,
    crawl: body.crawl
      ? { max_pages: Math.min(body.crawl.max_pages, maxCrawlPages), same_site: body.crawl.same_site }
      : null,
  };
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
