import { errors } from '@agentry/errors';
import { and, asc, desc, eq, getTableColumns, gt, lt, ne, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import { type KnowledgeSourceKind, knowledgeBases, knowledgeChunks, knowledgeDocuments } from '../schema.ts';
import { withSystemScope, withTenantScope } from '../tenant-scope.ts';
import { lockKnowledgeLimit } from './knowledge-bases.ts';

export type KnowledgeDocumentRow = typeof knowledgeDocuments.$inferSelect;
/** A document without its stored source (listings, API answers). */
export type KnowledgeDocumentView = Omit<KnowledgeDocumentRow, 'content'>;

const { content: _content, ...viewColumns } = getTableColumns(knowledgeDocuments);

export interface NewKnowledgeDocument {
  knowledgeBaseId: string;
  parentId?: string | null;
  title: string;
  source: KnowledgeSourceKind;
  format?: string | null;
  filename?: string | null;
  url?: string | null;
  crawl?: { max_pages: number; same_site: boolean; skipped?: number } | null;
  content?: Uint8Array | null;
  contentHash?: string | null;
}

/** The bounds a new document is checked against, in the inserting transaction. */
export interface KnowledgeDocumentLimits {
  maxDocumentsPerBase: number;
  maxBytesPerTenant: number;
}

/**
 * Adds a queued document to a base. Refuses (in the inserting transaction, under the tenant's
 * knowledge lock, so concurrent uploads cannot pass a limit together) a full base (409
 * `knowledge_base_full`) and a tenant whose stored sources would pass its bytes
 * (429 `knowledge_quota_exceeded`); `undefined` when the base does not exist.
 *
 * @example
 * const doc = await createKnowledgeDocument(db, tenantId, { knowledgeBaseId, title: 'FAQ', source: 'text', format: 'text', content }, limits);
 */
export async function createKnowledgeDocument(
  db: Db,
  tenantId: string,
  document: NewKnowledgeDocument,
  limits: KnowledgeDocumentLimits,
): Promise<KnowledgeDocumentView | undefined> {
  return withTenantScope(db, tenantId, async (tx) => {
    await lockKnowledgeLimit(tx, tenantId);
    const [usage] = await tx
      .select({
        exists: sql<boolean>`exists (select 1 from ${knowledgeBases} b where b.id = ${document.knowledgeBaseId} and b.tenant_id = ${tenantId})`,
        baseDocuments: sql<number>`count(*) filter (where ${knowledgeDocuments.knowledgeBaseId} = ${document.knowledgeBaseId})::int`,
        tenantBytes: sql<number>`coalesce(sum(${knowledgeDocuments.bytes}), 0)::bigint`,
      })
      .from(knowledgeDocuments)
      .where(eq(knowledgeDocuments.tenantId, tenantId));
    if (!usage?.exists) return undefined;
    if (Number(usage.baseDocuments) >= limits.maxDocumentsPerBase) {
      throw errors.conflict(
        'knowledge_base_full',
        `A knowledge base holds at most ${limits.maxDocumentsPerBase} documents`,
      );
    }
    const bytes = document.content?.byteLength ?? 0;
    if (Number(usage.tenantBytes) + bytes > limits.maxBytesPerTenant) {
      throw quotaExceeded(`A tenant's knowledge sources may take at most ${limits.maxBytesPerTenant} bytes`, {
        limit_bytes: limits.maxBytesPerTenant,
      });
    }
    const [row] = await tx
      .insert(knowledgeDocuments)
      .values({ id: newId(), tenantId, ...document, bytes, status: 'queued' })
      .returning(viewColumns);
    return row as KnowledgeDocumentView;
  });
}

/** What {@link addCrawlPage} did with a page: queued it (new or again), or refused it for a limit. */
export type CrawlPageOutcome =
  | { kind: 'queued'; document: { id: string; generation: number }; created: boolean }
  | { kind: 'refused'; code: 'knowledge_base_full' | 'knowledge_quota_exceeded' };

/**
 * Adds a page a crawl found as a child of its start document (`source: 'url'`, `parentId`), or
 * queues again (generation + 1) the child already there for that URL, in ONE transaction under the
 * tenant's knowledge lock: a crawl run twice (a retry, a resync) never adds a page twice (the
 * unique `(parent_id, url)` index backs this up). A child still `queued`/`processing` is returned
 * as it is (its job is only queued again, which is idempotent). A new page past the base's
 * documents or the tenant's bytes is refused (no row), not thrown: the crawl stops there.
 *
 * @example
 * const outcome = await addCrawlPage(db, tenantId, parent, { url, title }, limits);
 * if (outcome.kind === 'queued') await queue.enqueue(knowledgeJobId(outcome.document), { tenantId, documentId: outcome.document.id });
 */
export async function addCrawlPage(
  db: Db,
  tenantId: string,
  parent: { id: string; knowledgeBaseId: string },
  page: { url: string; title: string },
  limits: KnowledgeDocumentLimits,
): Promise<CrawlPageOutcome> {
  return withTenantScope(db, tenantId, async (tx) => {
    await lockKnowledgeLimit(tx, tenantId);
    const [existing] = await tx
      .select({
        id: knowledgeDocuments.id,
        generation: knowledgeDocuments.generation,
        status: knowledgeDocuments.status,
      })
      .from(knowledgeDocuments)
      .where(
        and(
          eq(knowledgeDocuments.tenantId, tenantId),
          eq(knowledgeDocuments.parentId, parent.id),
          eq(knowledgeDocuments.url, page.url),
        ),
      )
      .for('update');
    if (existing) {
      if (existing.status === 'queued' || existing.status === 'processing') {
        return { kind: 'queued', document: existing, created: false };
      }
      const [requeued] = await tx
        .update(knowledgeDocuments)
        .set({
          status: 'queued',
          progress: 0,
          error: null,
          generation: sql`${knowledgeDocuments.generation} + 1`,
          updatedAt: sql`now()`,
        })
        .where(eq(knowledgeDocuments.id, existing.id))
        .returning({ id: knowledgeDocuments.id, generation: knowledgeDocuments.generation });
      return { kind: 'queued', document: requeued!, created: false };
    }
    const [usage] = await tx
      .select({
        baseDocuments: sql<number>`count(*) filter (where ${knowledgeDocuments.knowledgeBaseId} = ${parent.knowledgeBaseId})::int`,
        tenantBytes: sql<number>`coalesce(sum(${knowledgeDocuments.bytes}), 0)::bigint`,
      })
      .from(knowledgeDocuments)
      .where(eq(knowledgeDocuments.tenantId, tenantId));
    if (Number(usage?.baseDocuments ?? 0) >= limits.maxDocumentsPerBase) {
      return { kind: 'refused', code: 'knowledge_base_full' };
    }
    // The page's bytes are not known until its own job fetches it: a tenant already at its quota gets no more.
    if (Number(usage?.tenantBytes ?? 0) >= limits.maxBytesPerTenant) {
      return { kind: 'refused', code: 'knowledge_quota_exceeded' };
    }
    const [row] = await tx
      .insert(knowledgeDocuments)
      .values({
        id: newId(),
        tenantId,
        knowledgeBaseId: parent.knowledgeBaseId,
        parentId: parent.id,
        title: page.title,
        source: 'url',
        url: page.url,
        status: 'queued',
      })
      .returning({ id: knowledgeDocuments.id, generation: knowledgeDocuments.generation });
    return { kind: 'queued', document: row!, created: true };
  });
}

function quotaExceeded(message: string, details: Record<string, unknown>) {
  return errors.of({ code: 'knowledge_quota_exceeded', message, category: 'user', retryable: false, details });
}

/** A base's documents, oldest first (an upload's order); `after` is the last id of the previous page. */
export async function listKnowledgeDocuments(
  db: Db,
  tenantId: string,
  knowledgeBaseId: string,
  page: { limit: number; after?: string },
): Promise<KnowledgeDocumentView[]> {
  return withTenantScope(db, tenantId, (tx) =>
    tx
      .select(viewColumns)
      .from(knowledgeDocuments)
      .where(
        and(
          eq(knowledgeDocuments.tenantId, tenantId),
          eq(knowledgeDocuments.knowledgeBaseId, knowledgeBaseId),
          page.after ? gt(knowledgeDocuments.id, page.after) : undefined,
        ),
      )
      .orderBy(asc(knowledgeDocuments.id))
      .limit(page.limit),
  ) as Promise<KnowledgeDocumentView[]>;
}

export async function getKnowledgeDocument(
  db: Db,
  tenantId: string,
  knowledgeBaseId: string,
  id: string,
): Promise<KnowledgeDocumentView | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select(viewColumns)
      .from(knowledgeDocuments)
      .where(
        and(
          eq(knowledgeDocuments.tenantId, tenantId),
          eq(knowledgeDocuments.knowledgeBaseId, knowledgeBaseId),
          eq(knowledgeDocuments.id, id),
        ),
      ),
  );
  return row as KnowledgeDocumentView | undefined;
}

/** A document with its stored source, for ingestion. */
export async function loadKnowledgeDocument(
  db: Db,
  tenantId: string,
  id: string,
): Promise<KnowledgeDocumentRow | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select()
      .from(knowledgeDocuments)
      .where(and(eq(knowledgeDocuments.tenantId, tenantId), eq(knowledgeDocuments.id, id))),
  );
  return row;
}

export async function deleteKnowledgeDocument(
  db: Db,
  tenantId: string,
  knowledgeBaseId: string,
  id: string,
): Promise<boolean> {
  const deleted = await withTenantScope(db, tenantId, (tx) =>
    tx
      .delete(knowledgeDocuments)
      .where(
        and(
          eq(knowledgeDocuments.tenantId, tenantId),
          eq(knowledgeDocuments.knowledgeBaseId, knowledgeBaseId),
          eq(knowledgeDocuments.id, id),
        ),
      )
      .returning({ id: knowledgeDocuments.id }),
  );
  return deleted.length > 0;
}

/**
 * Queues a URL document again (resync): `queued`, generation + 1 (the job id changes, so the new
 * job is not mistaken for the finished one). Files and text: 409 `document_not_resyncable`.
 */
export async function requeueKnowledgeDocument(
  db: Db,
  tenantId: string,
  knowledgeBaseId: string,
  id: string,
): Promise<KnowledgeDocumentView | undefined> {
  return withTenantScope(db, tenantId, async (tx) => {
    const [current] = await tx
      .select({ source: knowledgeDocuments.source })
      .from(knowledgeDocuments)
      .where(
        and(
          eq(knowledgeDocuments.tenantId, tenantId),
          eq(knowledgeDocuments.knowledgeBaseId, knowledgeBaseId),
          eq(knowledgeDocuments.id, id),
        ),
      )
      .for('update');
    if (!current) return undefined;
    if (current.source !== 'url') {
      throw errors.conflict('document_not_resyncable', 'Only URL documents can be fetched again; upload the file anew');
    }
    const [row] = await tx
      .update(knowledgeDocuments)
      .set({
        status: 'queued',
        progress: 0,
        error: null,
        generation: sql`${knowledgeDocuments.generation} + 1`,
        updatedAt: sql`now()`,
      })
      .where(eq(knowledgeDocuments.id, id))
      .returning(viewColumns);
    return row as KnowledgeDocumentView;
  });
}

/** Marks a document `processing` (ingestion started); false when it is gone. */
export async function startKnowledgeDocument(db: Db, tenantId: string, id: string): Promise<boolean> {
  const rows = await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(knowledgeDocuments)
      .set({ status: 'processing', progress: 0, error: null, updatedAt: sql`now()` })
      .where(and(eq(knowledgeDocuments.tenantId, tenantId), eq(knowledgeDocuments.id, id)))
      .returning({ id: knowledgeDocuments.id }),
  );
  return rows.length > 0;
}

/** Stores what ingestion learnt before chunking: a URL's fetched bytes and format, the title, pages. */
export async function updateKnowledgeDocumentSource(
  db: Db,
  tenantId: string,
  id: string,
  change: {
    content?: Uint8Array;
    contentHash?: string;
    format?: string;
    title?: string;
    pages?: number | null;
    progress?: number;
    crawl?: { max_pages: number; same_site: boolean; skipped?: number };
  },
): Promise<void> {
  await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(knowledgeDocuments)
      .set({
        ...change,
        ...(change.content ? { bytes: change.content.byteLength } : {}),
        updatedAt: sql`now()`,
      })
      .where(and(eq(knowledgeDocuments.tenantId, tenantId), eq(knowledgeDocuments.id, id))),
  );
}

/** Ends a document's ingestion as `failed` with its reason; its chunks (none, or a resync's old ones) are removed. */
export async function failKnowledgeDocument(
  db: Db,
  tenantId: string,
  id: string,
  error: { code: string; message: string },
): Promise<void> {
  await withTenantScope(db, tenantId, async (tx) => {
    await tx
      .delete(knowledgeChunks)
      .where(and(eq(knowledgeChunks.tenantId, tenantId), eq(knowledgeChunks.documentId, id)));
    await tx
      .update(knowledgeDocuments)
      .set({ status: 'failed', error, chunkCount: 0, updatedAt: sql`now()` })
      .where(and(eq(knowledgeDocuments.tenantId, tenantId), eq(knowledgeDocuments.id, id)));
  });
}

/** A chunk as ingestion writes it: text, place, embedding and its full-text lexemes. */
export interface NewKnowledgeChunk {
  index: number;
  text: string;
  headingPath: string[];
  page: number | null;
  tokens: number;
  embedding: Float32Array | number[];
  /** The chunk's lexical features in order (`lexicalFeatures`): its full-text vector. */
  features: readonly string[];
}

/**
 * Replaces a document's chunks and marks it `ready`, in ONE transaction: searches see the old
 * chunks or the new ones, never a mix, and never a half-indexed document. Refuses (409
 * `knowledge_base_full`) when the base would pass `maxChunksPerBase`. False when the document is
 * gone (deleted while it was being ingested).
 */
export async function finishKnowledgeDocument(
  db: Db,
  tenantId: string,
  id: string,
  result: { chunks: readonly NewKnowledgeChunk[]; pages: number | null },
  limits: { maxChunksPerBase: number },
): Promise<boolean> {
  return withTenantScope(db, tenantId, async (tx) => {
    const [document] = await tx
      .select({ knowledgeBaseId: knowledgeDocuments.knowledgeBaseId })
      .from(knowledgeDocuments)
      .where(and(eq(knowledgeDocuments.tenantId, tenantId), eq(knowledgeDocuments.id, id)))
      .for('update');
    if (!document) return false;
    await lockKnowledgeLimit(tx, document.knowledgeBaseId);
    const [others] = await tx
      .select({ chunks: sql<number>`coalesce(sum(${knowledgeDocuments.chunkCount}), 0)::int` })
      .from(knowledgeDocuments)
      .where(
        and(
          eq(knowledgeDocuments.knowledgeBaseId, document.knowledgeBaseId),
          ne(knowledgeDocuments.id, id),
          eq(knowledgeDocuments.status, 'ready'),
        ),
      );
    if (Number(others?.chunks ?? 0) + result.chunks.length > limits.maxChunksPerBase) {
      throw errors.conflict(
        'knowledge_base_full',
        `A knowledge base holds at most ${limits.maxChunksPerBase} chunks; this document has ${result.chunks.length}`,
      );
    }
    await tx
      .delete(knowledgeChunks)
      .where(and(eq(knowledgeChunks.tenantId, tenantId), eq(knowledgeChunks.documentId, id)));
    // Batches keep each statement's parameters well under the protocol's limit.
    for (let start = 0; start < result.chunks.length; start += 200) {
      await tx.insert(knowledgeChunks).values(
        result.chunks.slice(start, start + 200).map((chunk) => ({
          id: newId(),
          tenantId,
          knowledgeBaseId: document.knowledgeBaseId,
          documentId: id,
          index: chunk.index,
          text: chunk.text,
          headingPath: chunk.headingPath,
          page: chunk.page,
          tokens: chunk.tokens,
          embedding: [...chunk.embedding],
          search: sql`${tsvectorLiteral(chunk.features)}::tsvector`,
        })),
      );
    }
    await tx
      .update(knowledgeDocuments)
      .set({
        status: 'ready',
        progress: 1,
        error: null,
        chunkCount: result.chunks.length,
        pages: result.pages,
        updatedAt: sql`now()`,
      })
      .where(eq(knowledgeDocuments.id, id));
    return true;
  });
}

/** Postgres refuses lexemes of 2 KiB and more; such a "word" is noise anyway. */
const MAX_LEXEME_BYTES = 1000;
/** tsvector positions stop at 16383. */
const MAX_POSITION = 16_383;

/** A lexeme quoted for the tsvector/tsquery input syntax (quotes doubled, backslashes escaped). */
export function quoteLexeme(lexeme: string): string {
  return `'${lexeme.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

export function usableLexeme(lexeme: string): boolean {
  return lexeme.length > 0 && Buffer.byteLength(lexeme) <= MAX_LEXEME_BYTES;
}

/**
 * A tsvector in its input syntax, from features computed in JavaScript: cast with `::tsvector`,
 * no text-search parser runs, so what is indexed is exactly the features (words, CJK characters
 * and bigrams) whatever the database's locale.
 */
export function tsvectorLiteral(features: readonly string[]): string {
  const positions = new Map<string, number[]>();
  features.forEach((feature, i) => {
    if (!usableLexeme(feature)) return;
    const list = positions.get(feature) ?? [];
    if (list.length < 256) list.push(Math.min(i + 1, MAX_POSITION));
    positions.set(feature, list);
  });
  return [...positions].map(([lexeme, at]) => `${quoteLexeme(lexeme)}:${[...new Set(at)].join(',')}`).join(' ');
}

/** An OR tsquery in its input syntax (cast with `::tsquery`); empty when no feature is usable. */
export function tsqueryLiteral(features: readonly string[]): string {
  return [...new Set(features.filter(usableLexeme))].map(quoteLexeme).join(' | ');
}

/** A chunk as the preview lists it. */
export interface KnowledgeChunkView {
  id: string;
  documentId: string;
  knowledgeBaseId: string;
  index: number;
  text: string;
  headingPath: string[];
  page: number | null;
  title: string;
  url: string | null;
}

const chunkView = {
  id: knowledgeChunks.id,
  documentId: knowledgeChunks.documentId,
  knowledgeBaseId: knowledgeChunks.knowledgeBaseId,
  index: knowledgeChunks.index,
  text: knowledgeChunks.text,
  headingPath: knowledgeChunks.headingPath,
  page: knowledgeChunks.page,
  title: knowledgeDocuments.title,
  url: knowledgeDocuments.url,
};

/** A document's chunks in order; `after` is the last index of the previous page. */
export async function listKnowledgeChunks(
  db: Db,
  tenantId: string,
  knowledgeBaseId: string,
  documentId: string,
  page: { limit: number; after?: number },
): Promise<KnowledgeChunkView[]> {
  return withTenantScope(db, tenantId, (tx) =>
    tx
      .select(chunkView)
      .from(knowledgeChunks)
      .innerJoin(knowledgeDocuments, eq(knowledgeDocuments.id, knowledgeChunks.documentId))
      .where(
        and(
          eq(knowledgeChunks.tenantId, tenantId),
          eq(knowledgeChunks.knowledgeBaseId, knowledgeBaseId),
          eq(knowledgeChunks.documentId, documentId),
          page.after !== undefined ? gt(knowledgeChunks.index, page.after) : undefined,
        ),
      )
      .orderBy(asc(knowledgeChunks.index))
      .limit(page.limit),
  );
}

/** A search hit of one of the two rankings. */
export interface RankedChunk extends KnowledgeChunkView {
  score: number;
}

/** How the database compares vectors (see `detectVectorSearch`). */
export type VectorSearchMode = 'pgvector' | 'builtin';

/**
 * Whether the database has pgvector (the migration creates it where the server offers it).
 *
 * @example
 * const mode = await detectVectorSearch(db); // 'builtin' on a Postgres without the extension
 */
export async function detectVectorSearch(db: Db): Promise<VectorSearchMode> {
  const result = await db.execute(sql`select exists (select 1 from pg_extension where extname = 'vector') as has`);
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { has: boolean }[];
  return rows[0]?.has ? 'pgvector' : 'builtin';
}

function arrayLiteral(values: readonly (string | number)[]): string {
  return `{${values.join(',')}}`;
}

function readyChunksOf(tenantId: string, baseIds: readonly string[]) {
  return and(
    eq(knowledgeChunks.tenantId, tenantId),
    sql`${knowledgeChunks.knowledgeBaseId} = any(${arrayLiteral(baseIds)}::uuid[])`,
    eq(knowledgeDocuments.status, 'ready'),
  );
}

/**
 * The `limit` chunks of the bases most similar to a unit vector (cosine = dot product), exact:
 * pgvector's `<=>` over a cast, or `knowledge_dot` where the database lacks it. Both give the same
 * order (ties by id).
 */
export async function searchKnowledgeByVector(
  db: Db,
  tenantId: string,
  params: {
    baseIds: readonly string[];
    vector: Float32Array | readonly number[];
    limit: number;
    mode: VectorSearchMode;
  },
): Promise<RankedChunk[]> {
  if (params.baseIds.length === 0) return [];
  const values = [...params.vector].map((v) => (Number.isFinite(v) ? v : 0));
  const score =
    params.mode === 'pgvector'
      ? sql<number>`(1 - (${knowledgeChunks.embedding}::vector <=> ${`[${values.join(',')}]`}::vector))`
      : sql<number>`knowledge_dot(${knowledgeChunks.embedding}, ${arrayLiteral(values)}::real[])`;
  return rankedChunks(db, tenantId, params, score);
}

/** The `limit` ready chunks of the bases by `score` (highest first, ties by id), optionally filtered. */
async function rankedChunks(
  db: Db,
  tenantId: string,
  params: { baseIds: readonly string[]; limit: number },
  score: SQL<number>,
  filter?: SQL,
): Promise<RankedChunk[]> {
  const rows = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select({ ...chunkView, score: score.as('score') })
      .from(knowledgeChunks)
      .innerJoin(knowledgeDocuments, eq(knowledgeDocuments.id, knowledgeChunks.documentId))
      .where(and(readyChunksOf(tenantId, params.baseIds), filter))
      .orderBy(desc(sql`score`), asc(knowledgeChunks.id))
      .limit(params.limit),
  );
  return rows.map((row) => ({ ...row, score: Number(row.score) }));
}

/**
 * The `limit` chunks of the bases that best match any of the features (an OR query, ranked by
 * `ts_rank_cd`). The query is a parameter in tsquery syntax with every lexeme quoted: nothing a
 * user types can change its shape.
 */
export async function searchKnowledgeByText(
  db: Db,
  tenantId: string,
  params: { baseIds: readonly string[]; features: readonly string[]; limit: number },
): Promise<RankedChunk[]> {
  const query = tsqueryLiteral(params.features.slice(0, 512));
  if (params.baseIds.length === 0 || query === '') return [];
  const tsquery = sql`${query}::tsquery`;
  return rankedChunks(
    db,
    tenantId,
    params,
    sql<number>`ts_rank_cd(${knowledgeChunks.search}, ${tsquery})`,
    sql`${knowledgeChunks.search} @@ ${tsquery}`,
  );
}

/**
 * Documents left `queued` or `processing` since before `staleBefore` (a crashed process's), across
 * tenants, oldest first, at most `limit`: the sweeper queues them again.
 */
export async function staleKnowledgeDocuments(
  db: Db,
  staleBefore: Date,
  limit: number,
): Promise<{ id: string; tenantId: string; generation: number }[]> {
  return withSystemScope(db, 'knowledge ingestion sweeper', (tx) =>
    tx
      .select({
        id: knowledgeDocuments.id,
        tenantId: knowledgeDocuments.tenantId,
        generation: knowledgeDocuments.generation,
      })
      .from(knowledgeDocuments)
      .where(
        and(
          sql`${knowledgeDocuments.status} in ('queued', 'processing')`,
          lt(knowledgeDocuments.updatedAt, staleBefore),
        ),
      )
      .orderBy(asc(knowledgeDocuments.updatedAt))
      .limit(limit),
  );
}

/**
 * Takes a stale document back to `queued` with the next generation, when nobody changed it since
 * it was read (`generation` unchanged); the new generation, or undefined when it moved on.
 */
export async function requeueStaleKnowledgeDocument(
  db: Db,
  tenantId: string,
  id: string,
  generation: number,
): Promise<number | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .update(knowledgeDocuments)
      .set({ status: 'queued', generation: sql`${knowledgeDocuments.generation} + 1`, updatedAt: sql`now()` })
      .where(
        and(
          eq(knowledgeDocuments.tenantId, tenantId),
          eq(knowledgeDocuments.id, id),
          eq(knowledgeDocuments.generation, generation),
          sql`${knowledgeDocuments.status} in ('queued', 'processing')`,
        ),
      )
      .returning({ generation: knowledgeDocuments.generation }),
  );
  return row?.generation;
}
