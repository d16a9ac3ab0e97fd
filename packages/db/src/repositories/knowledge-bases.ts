import { errors } from '@agentry/errors';
import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { newId } from '../ids.ts';
import { knowledgeBases, knowledgeChunks, knowledgeDocuments } from '../schema.ts';
import { type Tx, withTenantScope } from '../tenant-scope.ts';

export type KnowledgeBaseRow = typeof knowledgeBases.$inferSelect;

/** A base with what listings show about its contents. */
export interface KnowledgeBaseWithCounts extends KnowledgeBaseRow {
  documentCount: number;
  chunkCount: number;
  bytes: number;
}

export interface NewKnowledgeBase {
  name: string;
  description?: string | null;
  embeddingModel: string;
  dimensions: number;
}

/**
 * Serialises the writes that a limit covers (documents and bytes of a tenant, chunks of a base)
 * for the rest of the transaction: counting and inserting then cannot race past a limit.
 */
export async function lockKnowledgeLimit(tx: Tx, key: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`knowledge:${key}`}, 0))`);
}

// Qualified by hand: drizzle writes a lone `"id"` in a one-table select, which inside the
// subqueries would mean the document's id.
const baseId = sql.raw('"knowledge_bases"."id"');
const counts = {
  documentCount: sql<number>`(select count(*)::int from ${knowledgeDocuments} d where d.knowledge_base_id = ${baseId})`,
  chunkCount: sql<number>`(select coalesce(sum(d.chunk_count), 0)::int from ${knowledgeDocuments} d where d.knowledge_base_id = ${baseId})`,
  bytes: sql<number>`(select coalesce(sum(d.bytes), 0)::bigint from ${knowledgeDocuments} d where d.knowledge_base_id = ${baseId})`,
};

function withNumbers(row: KnowledgeBaseWithCounts): KnowledgeBaseWithCounts {
  return {
    ...row,
    documentCount: Number(row.documentCount),
    chunkCount: Number(row.chunkCount),
    bytes: Number(row.bytes),
  };
}

function nameTaken(name: string) {
  return errors.validation(`A knowledge base named "${name}" exists already`, [
    { path: '/name', code: 'taken', message: 'Another knowledge base of this tenant has this name' },
  ]);
}

/**
 * Creates a base, refusing past `maxBases` per tenant (`knowledge_quota_exceeded`) and a name the
 * tenant uses already (`validation_failed` on `/name`), both checked in the inserting transaction.
 *
 * @example
 * const base = await createKnowledgeBase(db, tenantId, { name: 'Help', embeddingModel: 'local/hashing-v1', dimensions: 256 }, { maxBases: 50 });
 */
export async function createKnowledgeBase(
  db: Db,
  tenantId: string,
  base: NewKnowledgeBase,
  limits: { maxBases: number },
): Promise<KnowledgeBaseWithCounts> {
  return withTenantScope(db, tenantId, async (tx) => {
    await lockKnowledgeLimit(tx, tenantId);
    const [existing] = await tx
      .select({ n: sql<number>`count(*)::int`, named: sql<boolean>`bool_or(${knowledgeBases.name} = ${base.name})` })
      .from(knowledgeBases)
      .where(eq(knowledgeBases.tenantId, tenantId));
    if (existing?.named) throw nameTaken(base.name);
    if (Number(existing?.n ?? 0) >= limits.maxBases) {
      throw errors.of({
        code: 'knowledge_quota_exceeded',
        message: `A tenant may have at most ${limits.maxBases} knowledge bases`,
        category: 'user',
        retryable: false,
        details: { limit: limits.maxBases },
      });
    }
    const [row] = await tx
      .insert(knowledgeBases)
      .values({ id: newId(), tenantId, ...base, description: base.description ?? null })
      .returning();
    return { ...row!, documentCount: 0, chunkCount: 0, bytes: 0 };
  });
}

/** Newest first; `before` is the last id of the previous page (ids are time-ordered). */
export async function listKnowledgeBases(
  db: Db,
  tenantId: string,
  page: { limit: number; before?: string },
): Promise<KnowledgeBaseWithCounts[]> {
  const rows = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select({ base: knowledgeBases, ...counts })
      .from(knowledgeBases)
      .where(and(eq(knowledgeBases.tenantId, tenantId), page.before ? lt(knowledgeBases.id, page.before) : undefined))
      .orderBy(desc(knowledgeBases.id))
      .limit(page.limit),
  );
  return rows.map(({ base, ...rest }) => withNumbers({ ...base, ...rest }));
}

export async function getKnowledgeBase(
  db: Db,
  tenantId: string,
  id: string,
): Promise<KnowledgeBaseWithCounts | undefined> {
  const [row] = await withTenantScope(db, tenantId, (tx) =>
    tx
      .select({ base: knowledgeBases, ...counts })
      .from(knowledgeBases)
      .where(and(eq(knowledgeBases.tenantId, tenantId), eq(knowledgeBases.id, id))),
  );
  if (!row) return undefined;
  const { base, ...rest } = row;
  return withNumbers({ ...base, ...rest });
}

/** The bases a search names, by id or by name (an agent config may say either); unknown ones are absent. */
export async function findKnowledgeBases(
  db: Db,
  tenantId: string,
  idsOrNames: readonly string[],
): Promise<KnowledgeBaseRow[]> {
  if (idsOrNames.length === 0) return [];
  const ids = idsOrNames.filter((value) => /^[0-9a-f-]{36}$/i.test(value));
  return withTenantScope(db, tenantId, (tx) =>
    tx
      .select()
      .from(knowledgeBases)
      .where(
        and(
          eq(knowledgeBases.tenantId, tenantId),
          sql`(${ids.length > 0 ? inArray(knowledgeBases.id, ids) : sql`false`} or ${inArray(knowledgeBases.name, [...idsOrNames])})`,
        ),
      ),
  );
}

/** Changes a base's name or description; undefined when it does not exist. */
export async function updateKnowledgeBase(
  db: Db,
  tenantId: string,
  id: string,
  change: { name?: string; description?: string | null },
): Promise<KnowledgeBaseWithCounts | undefined> {
  return withTenantScope(db, tenantId, async (tx) => {
    if (change.name !== undefined) {
      const [other] = await tx
        .select({ id: knowledgeBases.id })
        .from(knowledgeBases)
        .where(and(eq(knowledgeBases.tenantId, tenantId), eq(knowledgeBases.name, change.name)));
      if (other && other.id !== id) throw nameTaken(change.name);
    }
    const updated = await tx
      .update(knowledgeBases)
      .set({ ...change, updatedAt: sql`now()` })
      .where(and(eq(knowledgeBases.tenantId, tenantId), eq(knowledgeBases.id, id)))
      .returning({ id: knowledgeBases.id });
    if (updated.length === 0) return undefined;
    return getKnowledgeBase(tx, tenantId, id);
  });
}

/** Deletes a base with its documents and chunks; false when it did not exist. */
export async function deleteKnowledgeBase(db: Db, tenantId: string, id: string): Promise<boolean> {
  return withTenantScope(db, tenantId, async (tx) => {
    // Chunks hang off documents (cascade); deleting them first keeps the cascade's work visible.
    await tx
      .delete(knowledgeChunks)
      .where(and(eq(knowledgeChunks.tenantId, tenantId), eq(knowledgeChunks.knowledgeBaseId, id)));
    const deleted = await tx
      .delete(knowledgeBases)
      .where(and(eq(knowledgeBases.tenantId, tenantId), eq(knowledgeBases.id, id)))
      .returning({ id: knowledgeBases.id });
    return deleted.length > 0;
  });
}
