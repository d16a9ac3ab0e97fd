import {
  createKnowledgeBase,
  createKnowledgeDocument,
  createTenantWithKey,
  detectVectorSearch,
  finishKnowledgeDocument,
  type NewKnowledgeChunk,
  requeueKnowledgeDocument,
  searchKnowledgeByText,
  searchKnowledgeByVector,
} from '@agentry/db';
import { createLocalEmbeddingModel, lexicalFeatures, queryFeatures } from '@agentry/provider-demo';
import { createTestDatabase, type TestDatabase, testDatabaseKinds } from '@agentry/testkit';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKnowledgeSearch, type VectorSearchSetting } from '../index.ts';

const model = createLocalEmbeddingModel();
const embeddingModelFor = async () => model;
const limits = { maxDocumentsPerBase: 1000, maxBytesPerTenant: 1 << 30 };

async function chunksOf(texts: string[]): Promise<NewKnowledgeChunk[]> {
  const vectors = await model.embed(texts);
  return texts.map((text, index) => ({
    index,
    text,
    headingPath: ['Guide', `Part ${index}`],
    page: null,
    tokens: text.length,
    embedding: vectors[index]!,
    features: lexicalFeatures(text),
  }));
}

const cases: { kind: 'pglite' | 'postgres'; setting: VectorSearchSetting }[] = testDatabaseKinds().flatMap((kind) => [
  { kind, setting: 'auto' as const },
  ...(kind === 'pglite' ? [{ kind, setting: 'builtin' as const }] : []),
]);

describe.each(cases)('knowledge search on $kind ($setting)', ({ kind, setting }) => {
  let database: TestDatabase;
  let tenantA: string;
  let tenantB: string;
  let baseId: string;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const { db } = database;
    tenantA = (await createTenantWithKey(db, { name: 'A', key: { prefix: 'sk_a', hash: `ka-${kind}-${setting}` } }))
      .tenant.id;
    tenantB = (await createTenantWithKey(db, { name: 'B', key: { prefix: 'sk_b', hash: `kb-${kind}-${setting}` } }))
      .tenant.id;
    const base = await createKnowledgeBase(
      db,
      tenantA,
      { name: 'Help', embeddingModel: 'local/hashing-v1', dimensions: 256 },
      { maxBases: 5 },
    );
    baseId = base.id;
    const doc = await createKnowledgeDocument(
      db,
      tenantA,
      { knowledgeBaseId: baseId, title: 'Handbook', source: 'text', format: 'text', content: new Uint8Array(10) },
      limits,
    );
    await finishKnowledgeDocument(
      db,
      tenantA,
      doc!.id,
      {
        chunks: await chunksOf([
          'Refunds are paid within 14 days of the return.',
          'Shipping takes three to five working days.',
          '退款将在收到退货后十四天内支付。',
          'Passwords can be reset from the account page.',
          "Weird input: it's a back\\slash & pipe | and (parens) !not :* prefix",
          'What do I do if my order is late? You can do what I do: ask us how, and we do it for you.',
        ]),
        pages: null,
      },
      { maxChunksPerBase: 100 },
    );
    // A document still processing: its chunks must not be seen.
    const pending = await createKnowledgeDocument(
      db,
      tenantA,
      { knowledgeBaseId: baseId, title: 'Draft', source: 'url', url: 'https://example.com/draft' },
      limits,
    );
    await finishKnowledgeDocument(
      db,
      tenantA,
      pending!.id,
      { chunks: await chunksOf(['Unicorn policy draft: unicorns ship free.']), pages: null },
      { maxChunksPerBase: 100 },
    );
    // A resync puts it back in the queue: its old chunks stay stored but must not be found.
    await requeueKnowledgeDocument(db, tenantA, baseId, pending!.id);
  });
  afterAll(() => database?.destroy());

  const search = () => createKnowledgeSearch({ db: database.db, embeddingModelFor, vectorSearch: setting });

  it('finds the refund chunk first, with its title and heading path', async () => {
    const hits = await search().search({
      tenantId: tenantA,
      knowledgeBases: ['Help'],
      query: 'refund policy',
      topK: 3,
    });
    expect(hits[0]).toMatchObject({ title: 'Handbook', headingPath: ['Guide', 'Part 0'], knowledgeBaseId: baseId });
    expect(hits[0]!.text).toContain('Refunds');
  });

  it('common words do not outrank the words that matter ("How do I reset my password?")', async () => {
    const query = 'How do I reset my password?';
    const byText = await searchKnowledgeByText(database.db, tenantA, {
      baseIds: [baseId],
      features: queryFeatures(query),
      limit: 3,
    });
    // The passage of only common words matched nothing that matters: it is not a hit at all.
    expect(byText.map((hit) => hit.text)).toEqual(['Passwords can be reset from the account page.']);
    const hits = await search().search({ tenantId: tenantA, knowledgeBases: ['Help'], query, topK: 3 });
    expect(hits[0]!.text, hits.map((hit) => hit.text).join(' | ')).toContain('Passwords');
  });

  it('a Chinese query finds the Chinese chunk (by id too)', async () => {
    const hits = await search().search({ tenantId: tenantA, knowledgeBases: [baseId], query: '退款多久', topK: 1 });
    expect(hits[0]?.text).toContain('退款');
  });

  it('another tenant sees nothing, by name or by id', async () => {
    const knowledge = search();
    expect(
      await knowledge.search({ tenantId: tenantB, knowledgeBases: ['Help', baseId], query: 'refund', topK: 5 }),
    ).toEqual([]);
    expect(
      await searchKnowledgeByText(database.db, tenantB, { baseIds: [baseId], features: ['refund'], limit: 5 }),
    ).toEqual([]);
  });

  it('a document being ingested again is invisible (no half-indexed hits)', async () => {
    const hits = await search().search({ tenantId: tenantA, knowledgeBases: ['Help'], query: 'unicorn', topK: 5 });
    expect(hits.map((hit) => hit.title)).not.toContain('Draft');
  });

  it('pgvector and the built-in search rank alike (where the database has pgvector)', async (context) => {
    // PGlite loads pgvector (the embedded mode always has it); a server may lack it (this machine's does).
    if (kind === 'pglite') expect(await detectVectorSearch(database.db)).toBe('pgvector');
    if ((await detectVectorSearch(database.db)) !== 'pgvector') {
      context.skip('this database has no pgvector: only the built-in search runs here');
    }
    for (const query of ['refund policy', '退款', 'password reset', 'shipping days']) {
      const [vector] = await model.embed([query]);
      const ranked = async (mode: 'pgvector' | 'builtin') =>
        (
          await searchKnowledgeByVector(database.db, tenantA, { baseIds: [baseId], vector: vector!, limit: 10, mode })
        ).map((hit) => [hit.id, hit.score.toFixed(5)]);
      expect(await ranked('pgvector')).toEqual(await ranked('builtin'));
    }
  });

  it('a re-ranking hook reorders the fused hits; a failing one is skipped', async () => {
    const seen: number[] = [];
    const reversed = createKnowledgeSearch({
      db: database.db,
      embeddingModelFor,
      vectorSearch: setting,
      rerankDepth: () => 4,
      // Puts the shipping chunk first, repeats one hit and invents another: only given hits count, once.
      rerank: async (_query, hits) => {
        seen.push(hits.length);
        const shipping = hits.find((hit) => hit.text.includes('Shipping'))!;
        return [{ ...shipping, score: 9 }, shipping, { ...hits[0]!, chunkId: 'made-up' }, ...hits];
      },
    });
    const hits = await reversed.search({ tenantId: tenantA, knowledgeBases: ['Help'], query: 'refund', topK: 2 });
    expect(seen).toEqual([4]);
    expect(hits).toHaveLength(2);
    expect(hits[0]).toMatchObject({ score: 9 });
    expect(hits[0]!.text).toContain('Shipping');
    expect(new Set(hits.map((hit) => hit.chunkId)).size).toBe(2);
    const errors: unknown[] = [];
    const failing = createKnowledgeSearch({
      db: database.db,
      embeddingModelFor,
      vectorSearch: setting,
      rerank: async () => {
        throw new Error('reranker down');
      },
      onRerankError: (error) => errors.push(error),
    });
    const fused = await failing.search({ tenantId: tenantA, knowledgeBases: ['Help'], query: 'refund', topK: 1 });
    expect(fused[0]!.text).toContain('Refunds');
    expect(errors).toHaveLength(1);
  });

  it('says which vector search it uses', async () => {
    const used = await search().vectorSearch();
    const available = kind === 'pglite' ? 'pgvector' : await detectVectorSearch(database.db);
    expect(used).toBe(setting === 'auto' ? available : setting);
  });

  it('hostile queries never break the text search (quotes, operators, backslashes, emoji, 2,000 chars)', async () => {
    const hostile = fc.oneof(
      fc.string({ maxLength: 2000 }),
      fc.stringMatching(/^[\s'"&|!():*\\<>-]{0,200}$/),
      fc.constantFrom("it's", 'a & b | !c', 'x:*', '\\', "'''", '😀😀 refund 😀', '(((', 'back\\slash'),
    );
    await fc.assert(
      fc.asyncProperty(hostile, async (query) => {
        const hits = await search().search({ tenantId: tenantA, knowledgeBases: ['Help'], query, topK: 3 });
        expect(hits.length).toBeLessThanOrEqual(3);
      }),
      { numRuns: 40 },
    );
    // Arbitrary lexemes reach the database quoted: they match themselves and nothing else breaks.
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ minLength: 1, maxLength: 30 }), { maxLength: 20 }), async (features) => {
        await searchKnowledgeByText(database.db, tenantA, { baseIds: [baseId], features, limit: 5 });
      }),
      { numRuns: 40 },
    );
    const [slash] = await searchKnowledgeByText(database.db, tenantA, {
      baseIds: [baseId],
      features: ['back'],
      limit: 5,
    });
    expect(slash?.text).toContain('back\\slash');
  });
});
