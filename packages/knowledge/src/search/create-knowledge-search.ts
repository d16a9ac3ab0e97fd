import {
  type Db,
  detectVectorSearch,
  findKnowledgeBases,
  type KnowledgeBaseRow,
  type RankedChunk,
  searchKnowledgeByText,
  searchKnowledgeByVector,
} from '@agentry/db';
import type { EmbeddingModel } from '@agentry/llm';
import { queryFeatures } from '@agentry/provider-demo';
import type { KnowledgeHit, KnowledgeSearch, VectorSearchKind } from '../types.ts';
import { fuseRankings } from './reciprocal-rank-fusion.ts';

/**
 * The embedding model of a base (its `provider/model` spec, fixed when it was made), for its
 * tenant: the same resolver embeds chunks at ingestion and queries at search.
 */
export type EmbeddingModelResolver = (params: {
  tenantId: string;
  spec: string;
  dimensions: number;
}) => Promise<EmbeddingModel>;

/** `auto` asks the database once (pgvector when it has the extension); the others force one path. */
export type VectorSearchSetting = 'auto' | VectorSearchKind;

export interface KnowledgeSearchOptions {
  db: Db;
  embeddingModelFor: EmbeddingModelResolver;
  /** Default `auto`; `builtin` forces the exact search of our own (tests cover both on one database). */
  vectorSearch?: VectorSearchSetting;
  /** Candidates each ranking contributes to the fusion (default 50). */
  candidates?: number;
  /**
   * Re-ranking hook (a cross-encoder, a provider's rerank API, business rules): it gets the query
   * and the fused top `rerankDepth` hits and returns them in its order (it may drop some, and set
   * their `score`); the search keeps the first `topK`. A failing re-ranker is skipped (logged by
   * `onRerankError`): retrieval still answers in the fused order.
   */
  rerank?: (query: string, hits: KnowledgeHit[], signal?: AbortSignal) => Promise<KnowledgeHit[]>;
  /** Hits the re-ranker sees (default 4 × `topK`, at most the fused candidates). */
  rerankDepth?: (topK: number) => number;
  onRerankError?: (error: unknown) => void;
}

/** The search agents and the API use, plus which vector comparison it runs. */
export interface StoreKnowledgeSearch extends KnowledgeSearch {
  /** How vectors are compared on this database (asked once per process). */
  vectorSearch(): Promise<VectorSearchKind>;
}

/**
 * Hybrid retrieval over a tenant's bases: the top candidates by vector similarity (the query
 * embedded once per embedding model of the bases) and by full-text rank (the query's lexical
 * features, CJK characters and bigrams included), fused by reciprocal rank fusion (k = 60). Only
 * chunks of `ready` documents are seen. Bases are named by id or by name; names or ids the tenant
 * does not have are ignored (an agent's config may outlive a base: it then finds nothing there).
 *
 * @example
 * const knowledge = createKnowledgeSearch({ db, embeddingModelFor });
 * const hits = await knowledge.search({ tenantId, knowledgeBases: ['Help center'], query: 'refund policy', topK: 5 });
 */
export function createKnowledgeSearch(options: KnowledgeSearchOptions): StoreKnowledgeSearch {
  const candidates = options.candidates ?? 50;
  let mode: Promise<VectorSearchKind> | undefined;
  const vectorSearch = () => {
    if (options.vectorSearch && options.vectorSearch !== 'auto') return Promise.resolve(options.vectorSearch);
    mode ??= detectVectorSearch(options.db).catch((error: unknown) => {
      mode = undefined;
      throw error;
    });
    return mode;
  };

  return {
    vectorSearch,
    async search({ tenantId, knowledgeBases, query, topK, signal }) {
      const bases = await findKnowledgeBases(options.db, tenantId, knowledgeBases);
      if (bases.length === 0 || topK < 1) return [];
      const kind = await vectorSearch();
      const [vectorRankings, textRanking] = await Promise.all([
        Promise.all(
          groupByModel(bases).map(async (group) => {
            const model = await options.embeddingModelFor({
              tenantId,
              spec: group[0]!.embeddingModel,
              dimensions: group[0]!.dimensions,
            });
            const [vector] = await (model.embedQuery ?? model.embed).call(model, [query], { signal });
            return searchKnowledgeByVector(options.db, tenantId, {
              baseIds: group.map((base) => base.id),
              vector: vector!,
              limit: candidates,
              mode: kind,
            });
          }),
        ),
        searchKnowledgeByText(options.db, tenantId, {
          baseIds: bases.map((base) => base.id),
          features: queryFeatures(query),
          limit: candidates,
        }),
      ]);
      // Several models' similarities do not compare: each group's list is its own ranking.
      const rankings = [...vectorRankings, textRanking];
      const chunks = new Map<string, RankedChunk>();
      for (const ranking of rankings) for (const chunk of ranking) chunks.set(chunk.id, chunk);
      const fused = fuseRankings(rankings.map((ranking) => ranking.map((chunk) => chunk.id)));
      const depth = options.rerank ? (options.rerankDepth?.(topK) ?? topK * 4) : topK;
      const hits = fused.slice(0, depth).map(({ id, score }) => toHit(chunks.get(id)!, score));
      return (await rerank(options, query, hits, signal)).slice(0, topK);
    },
  };
}

/** The re-ranker's order, restricted to the hits it was given (it can neither add nor repeat one). */
async function rerank(
  options: KnowledgeSearchOptions,
  query: string,
  hits: KnowledgeHit[],
  signal: AbortSignal | undefined,
): Promise<KnowledgeHit[]> {
  if (!options.rerank || hits.length === 0) return hits;
  try {
    const given = new Map(hits.map((hit) => [hit.chunkId, hit]));
    const seen = new Set<string>();
    const ordered: KnowledgeHit[] = [];
    for (const hit of await options.rerank(query, [...hits], signal)) {
      if (!given.has(hit.chunkId) || seen.has(hit.chunkId)) continue;
      seen.add(hit.chunkId);
      ordered.push({ ...given.get(hit.chunkId)!, score: Number.isFinite(hit.score) ? hit.score : 0 });
    }
    return ordered;
  } catch (error) {
    if (signal?.aborted) throw error;
    options.onRerankError?.(error);
    return hits;
  }
}

function groupByModel(bases: readonly KnowledgeBaseRow[]): KnowledgeBaseRow[][] {
  const groups = new Map<string, KnowledgeBaseRow[]>();
  for (const base of bases) {
    const key = `${base.embeddingModel}#${base.dimensions}`;
    groups.set(key, [...(groups.get(key) ?? []), base]);
  }
  return [...groups.values()];
}

function toHit(chunk: RankedChunk, score: number): KnowledgeHit {
  return {
    chunkId: chunk.id,
    documentId: chunk.documentId,
    knowledgeBaseId: chunk.knowledgeBaseId,
    title: chunk.title,
    headingPath: chunk.headingPath,
    page: chunk.page,
    url: chunk.url,
    text: chunk.text,
    score,
  };
}
