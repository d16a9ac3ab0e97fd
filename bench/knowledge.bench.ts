// One benchmark script (over 300 lines): its three scenarios share the databases and fixtures it
// creates and drops; each scenario is a function below.
/**
 * Knowledge bases (issue 20's benchmark), on this machine, with the built-in `local/hashing-v1`
 * embeddings (256 dimensions, no network):
 *   1. ingestion pages per second through the real pipeline (`ingestDocument`: extraction in the
 *      worker pool → chunking → embedding → one-transaction store) on Postgres, PDF and HTML, against
 *      extraction alone (`extractDocument`) on the same bytes;
 *   2. hybrid search latency (`createKnowledgeSearch(...).search`: vector + full text + RRF) at
 *      KB_PG_CHUNKS (100,000) chunks in one tenant on Postgres and KB_PGLITE_CHUNKS (10,000) on
 *      PGlite, against the full-text-only and vector-only queries of the store at the same size;
 *   3. recall@5 and MRR over the 50 labelled questions of bench/knowledge/ (hybrid, text-only,
 *      vector-only).
 * Postgres: a database created here and dropped at the end. See bench/README.md for the method.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import {
  createKnowledgeBase,
  createKnowledgeDocument,
  createTenantWithKey,
  type Database,
  type Db,
  detectVectorSearch,
  finishKnowledgeDocument,
  listKnowledgeDocuments,
  openDatabase,
  type RankedChunk,
  searchKnowledgeByText,
  searchKnowledgeByVector,
} from '../packages/db/src/index.ts';
import {
  builtinEmbeddingModelFor,
  chunkDocument,
  createKnowledgeSearch,
  DEFAULT_INGEST_LIMITS,
  type ExtractedDocument,
  embeddedText,
  extractDocument,
  type IngestDependencies,
  ingestDocument,
  type KnowledgeHit,
  type RetrievedPassage,
  recallAtK,
} from '../packages/knowledge/src/index.ts';
import {
  createLocalEmbeddingModel,
  hashEmbedding,
  lexicalFeatures,
  queryFeatures,
} from '../packages/provider-demo/src/index.ts';
import { testServices } from '../packages/testkit/src/services.ts';
import type { BenchResult } from './run.ts';
import { summarize } from './stats.ts';
import {
  generatedChunks,
  generatedHtmlPage,
  generatedPdf,
  loadCorpus,
  loadQuestions,
  random,
  sentencePool,
} from './support/knowledge-fixtures.ts';
import { machineCpuMs } from './support/proc.ts';

const envNumber = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const envText = (name: string, fallback: string) => process.env[name] ?? fallback;
const PDF_PAGES = envNumber('KB_PDF_PAGES', 50);
const PDF_RUNS = envNumber('KB_PDF_RUNS', 5);
const HTML_PAGES = envNumber('KB_HTML_PAGES', 50);
const PG_CHUNKS = envNumber('KB_PG_CHUNKS', 100_000);
const PGLITE_CHUNKS = envNumber('KB_PGLITE_CHUNKS', 10_000);
const PG_QUERIES = envNumber('KB_PG_QUERIES', 30);
const PGLITE_QUERIES = envNumber('KB_PGLITE_QUERIES', 40);
const CHUNK_WORDS = envNumber('KB_CHUNK_WORDS', 120);
const DIMENSIONS = 256;
const MODEL = 'local/hashing-v1';
/** The built-in model, for the vector-only baselines: queries embedded as the search embeds them. */
const localModel = createLocalEmbeddingModel({ dimensions: DIMENSIONS });
const queryVector = async (q: string) => (await localModel.embedQuery!([q]))[0]!;
/** What `createKnowledgeSearch` asks each ranking for by default. */
const CANDIDATES = 50;
const CHUNKS_PER_DOCUMENT = 1000;
const DOC_LIMITS = { maxDocumentsPerBase: 100_000, maxBytesPerTenant: 2 ** 40 };

const pool = sentencePool();

/** A tenant with one base, ready for documents. */
async function tenantWithBase(db: Db, name: string): Promise<{ tenantId: string; baseId: string }> {
  const { tenant } = await createTenantWithKey(db, {
    name,
    key: { prefix: 'sk_bench', hash: `bench-${randomBytes(8).toString('hex')}` },
  });
  const base = await createKnowledgeBase(
    db,
    tenant.id,
    { name, embeddingModel: MODEL, dimensions: DIMENSIONS },
    { maxBases: 10 },
  );
  return { tenantId: tenant.id, baseId: base.id };
}

function ingestDeps(db: Db): IngestDependencies {
  return {
    db,
    embeddingModelFor: builtinEmbeddingModelFor,
    pageFetcherFor: () => {
      throw new Error('the bench ingests no URL');
    },
    limits: { ...DEFAULT_INGEST_LIMITS, maxChunksPerBase: 1_000_000 },
  };
}

/** A fresh, migrated database on the machine's Postgres, dropped by `drop()`. */
async function freshPostgres(): Promise<{ database: Database; name: string; drop(): Promise<void> }> {
  const name = `agentry_bench_kb_${randomBytes(6).toString('hex')}`;
  const admin = postgres(testServices.postgresUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(testServices.postgresUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ kind: 'postgres', url: url.toString(), maxConnections: 5 });
  return {
    database,
    name,
    async drop() {
      await database.close();
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}

/** Pages per second of each sample (ms per sample of `pages` pages): median, and the slowest sample's rate as "p99". */
function rates(samplesMs: number[], pages: number): { median: number; p99: number } {
  const perSecond = samplesMs.map((ms) => (pages * 1000) / ms);
  const sorted = [...perSecond].sort((a, b) => a - b);
  return { median: summarize(perSecond).median, p99: sorted[Math.floor(0.01 * sorted.length)] ?? Number.NaN };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** What `ingestDocument` does between extraction and the store, in process: chunk, embed, features. */
function chunkAndEmbed(title: string, extracted: ExtractedDocument): number {
  const pieces = chunkDocument(extracted, DEFAULT_INGEST_LIMITS.chunk);
  for (const piece of pieces) {
    hashEmbedding(embeddedText(title, piece), DIMENSIONS);
    lexicalFeatures(`${title}\n${piece.headingPath.join('\n')}\n${piece.text}`);
  }
  return pieces.length;
}

interface IngestSamples {
  pipeline: number[];
  extract: number[];
  inProcess: number[];
  chunks: number;
}

/**
 * Ingests each input as a new document (uploaded untimed) and, alternately before or after it,
 * extracts the same bytes alone; then times chunking + embedding of the extracted document.
 */
async function ingestSamples(
  db: Db,
  inputs: Array<{ bytes: Uint8Array; format: 'pdf' | 'html'; filename: string }>,
): Promise<IngestSamples> {
  const deps = ingestDeps(db);
  const { tenantId, baseId } = await tenantWithBase(db, `ingestion-${randomBytes(4).toString('hex')}`);
  const upload = async (input: (typeof inputs)[number]) => {
    const doc = await createKnowledgeDocument(
      db,
      tenantId,
      { knowledgeBaseId: baseId, title: input.filename, source: 'file', ...input, content: input.bytes },
      DOC_LIMITS,
    );
    return doc!.id;
  };
  const out: IngestSamples = { pipeline: [], extract: [], inProcess: [], chunks: 0 };
  // One untimed round of each warms the worker pool, the JIT and the connections.
  await ingestDocument(deps, tenantId, await upload(inputs[0]!));
  await extractDocument(inputs[0]!, EXTRACT_LIMITS);
  for (const [i, input] of inputs.entries()) {
    const id = await upload(input);
    let extracted: ExtractedDocument | undefined;
    const pipeline = async () => {
      if ((await ingestDocument(deps, tenantId, id)) !== 'ready') throw new Error(`${input.filename} failed`);
    };
    const alone = async () => {
      extracted = await extractDocument(input, EXTRACT_LIMITS);
    };
    for (const [fn, into] of i % 2 === 0
      ? ([
          [pipeline, out.pipeline],
          [alone, out.extract],
        ] as const)
      : ([
          [alone, out.extract],
          [pipeline, out.pipeline],
        ] as const)) {
      into.push(await timed(fn));
    }
    const start = performance.now();
    out.chunks += chunkAndEmbed(input.filename, extracted!);
    out.inProcess.push(performance.now() - start);
  }
  return out;
}

const EXTRACT_LIMITS = { maxChars: DEFAULT_INGEST_LIMITS.maxChars, maxPages: DEFAULT_INGEST_LIMITS.maxPages };

function ingestResults(kind: string, samples: IngestSamples, pagesPerDoc: number, note: string): BenchResult[] {
  const pipeline = rates(samples.pipeline, pagesPerDoc);
  const alone = rates(samples.extract, pagesPerDoc);
  const ms = (list: number[]) => summarize(list).median.toFixed(1);
  const split = `per document (medians): pipeline ${ms(samples.pipeline)} ms, extraction alone ${ms(samples.extract)} ms, chunk + embed + features in process ${ms(samples.inProcess)} ms, ${Math.round(samples.chunks / samples.pipeline.length)} chunks; the rest is the database`;
  return [
    {
      name: `ingestion, ${kind}: pages/s through ingestDocument (extract → chunk → embed → store)`,
      unit: 'pages/s',
      ...pipeline,
      ratio: pipeline.median / alone.median,
      note: `${note}; ${split}; ratio = vs extraction alone`,
    },
    { name: `ingestion, ${kind}: pages/s of extractDocument alone (baseline)`, unit: 'pages/s', ...alone, note },
  ];
}

/** Figure 1: ingestion through the real pipeline against extraction alone, PDF and HTML. */
async function ingestion(db: Db): Promise<BenchResult[]> {
  const pdf = await generatedPdf(pool, PDF_PAGES, 300);
  const pdfs = Array.from({ length: PDF_RUNS }, (_, i) => ({
    bytes: pdf,
    format: 'pdf' as const,
    filename: `handbook-${i}.pdf`,
  }));
  const pages = Array.from({ length: HTML_PAGES }, (_, i) => ({
    bytes: new TextEncoder().encode(generatedHtmlPage(pool, i + 1, 5, 60)),
    format: 'html' as const,
    filename: `page-${i}.html`,
  }));
  const htmlBytes = Math.round(pages.reduce((n, p) => n + p.bytes.byteLength, 0) / pages.length);
  return [
    ...ingestResults(
      'PDF',
      await ingestSamples(db, pdfs),
      PDF_PAGES,
      `${PDF_RUNS} documents of one generated ${PDF_PAGES}-page PDF (${Math.round(pdf.byteLength / 1024)} KiB, ~300 words/page, Helvetica), one at a time, Postgres, ${MODEL}; p99 column = slowest document`,
    ),
    ...ingestResults(
      'HTML',
      await ingestSamples(db, pages),
      1,
      `${HTML_PAGES} generated HTML pages, one document each, one at a time (~${htmlBytes} B: nav, footer, 5 h2 sections of ~60 words), Postgres, ${MODEL}; rate per document, p99 column = slowest`,
    ),
  ];
}

/** Fills a base with `count` generated chunks through the store's own write (`finishKnowledgeDocument`), 1,000 per document. */
async function fill(db: Db, tenantId: string, baseId: string, count: number): Promise<number> {
  const next = random(42);
  const start = performance.now();
  for (let done = 0, n = 0; done < count; n++) {
    const size = Math.min(CHUNKS_PER_DOCUMENT, count - done);
    const title = `Northwind guide ${n + 1}`;
    const doc = await createKnowledgeDocument(
      db,
      tenantId,
      { knowledgeBaseId: baseId, title, source: 'text', format: 'text', content: new Uint8Array(1) },
      DOC_LIMITS,
    );
    const chunks = generatedChunks(pool, next, { count: size, words: CHUNK_WORDS, title, dimensions: DIMENSIONS });
    await finishKnowledgeDocument(db, tenantId, doc!.id, { chunks, pages: null }, { maxChunksPerBase: count });
    done += size;
  }
  return performance.now() - start;
}

/**
 * Figure 2 at one size: hybrid search vs the full-text-only and vector-only queries it is made of,
 * per question in rotating order (so drift weighs on all three alike).
 */
async function searchLatency(db: Db, label: string, chunks: number, queries: number): Promise<BenchResult[]> {
  const { tenantId, baseId } = await tenantWithBase(db, `search-${label}`);
  const fillMs = await fill(db, tenantId, baseId, chunks);
  await db.execute(sql`analyze knowledge_chunks`);
  const mode = await detectVectorSearch(db);
  const knowledge = createKnowledgeSearch({ db, embeddingModelFor: builtinEmbeddingModelFor });
  // A fixed shuffle, so a subset holds English and Chinese questions alike.
  const order = random(5);
  const questions = loadQuestions()
    .map((q) => ({ q, key: order() }))
    .sort((a, b) => a.key - b.key)
    .map(({ q }) => q)
    .slice(0, queries);
  const hybrid = (q: string) => knowledge.search({ tenantId, knowledgeBases: [baseId], query: q, topK: 5 });
  const text = (q: string) =>
    searchKnowledgeByText(db, tenantId, { baseIds: [baseId], features: queryFeatures(q), limit: CANDIDATES });
  const vector = async (q: string) =>
    searchKnowledgeByVector(db, tenantId, {
      baseIds: [baseId],
      vector: await queryVector(q),
      limit: CANDIDATES,
      mode,
    });
  const kinds = [hybrid, text, vector];
  const samples: number[][] = [[], [], []];
  // Warm-up: two questions through each (plans, caches, the pool's connections).
  for (const q of questions.slice(0, 2)) for (const fn of kinds) await fn(q.question);
  for (const [i, q] of questions.entries()) {
    for (let j = 0; j < kinds.length; j++) {
      const k = (i + j) % kinds.length;
      samples[k]!.push(await timed(() => kinds[k]!(q.question)));
    }
  }
  const [h, t, v] = samples.map(summarize) as [
    ReturnType<typeof summarize>,
    ReturnType<typeof summarize>,
    ReturnType<typeof summarize>,
  ];
  const note = `${chunks.toLocaleString('en')} chunks of ~${CHUNK_WORDS} words in one tenant and base, ${DIMENSIONS} dims, ${mode} vector path (exact), ${label}, ${questions.length} questions (${questions.filter((q) => q.chinese).length} Chinese), fill ${Math.round(fillMs / 1000)} s`;
  return [
    { name: `search latency, hybrid (vector + full text + RRF, top 5), ${label}`, unit: 'ms', ...h, note },
    {
      name: `search latency, full-text only (searchKnowledgeByText, ${CANDIDATES} candidates), ${label}`,
      unit: 'ms',
      ...t,
      ratio: t.median / h.median,
      note: `${note}; ratio = share of the hybrid median`,
    },
    {
      name: `search latency, vector only (searchKnowledgeByVector, ${CANDIDATES} candidates), ${label}`,
      unit: 'ms',
      ...v,
      ratio: v.median / h.median,
      note: `${note}; ratio = share of the hybrid median`,
    },
  ];
}

async function countChunks(db: Db, tenantId: string, baseId: string): Promise<number> {
  const documents = await listKnowledgeDocuments(db, tenantId, baseId, { limit: 1000 });
  return documents.reduce((n, d) => n + d.chunkCount, 0);
}

/** Figure 3: recall@5 and MRR of the labelled set, the corpus ingested through the real pipeline. */
async function retrieval(db: Db): Promise<BenchResult[]> {
  const deps = ingestDeps(db);
  const { tenantId, baseId } = await tenantWithBase(db, 'retrieval');
  const files = new Map<string, string>();
  for (const file of loadCorpus()) {
    const doc = await createKnowledgeDocument(
      db,
      tenantId,
      {
        knowledgeBaseId: baseId,
        title: file.filename,
        source: 'file',
        format: file.format,
        filename: file.filename,
        content: file.bytes,
      },
      DOC_LIMITS,
    );
    if ((await ingestDocument(deps, tenantId, doc!.id)) !== 'ready') throw new Error(`${file.filename} failed`);
    files.set(doc!.id, file.filename);
  }
  const mode = await detectVectorSearch(db);
  const knowledge = createKnowledgeSearch({ db, embeddingModelFor: builtinEmbeddingModelFor });
  const passages = (hits: ReadonlyArray<KnowledgeHit | RankedChunk>): RetrievedPassage[] =>
    hits.map((hit) => ({
      document: files.get('documentId' in hit ? hit.documentId : '') ?? '',
      text: hit.text,
      headingPath: hit.headingPath,
    }));
  const rankings = {
    hybrid: async (q: string) =>
      passages(await knowledge.search({ tenantId, knowledgeBases: [baseId], query: q, topK: 5 })),
    'full-text only': async (q: string) =>
      passages(await searchKnowledgeByText(db, tenantId, { baseIds: [baseId], features: queryFeatures(q), limit: 5 })),
    'vector only': async (q: string) =>
      passages(
        await searchKnowledgeByVector(db, tenantId, {
          baseIds: [baseId],
          vector: await queryVector(q),
          limit: 5,
          mode,
        }),
      ),
  };
  const questions = loadQuestions();
  const chunks = await countChunks(db, tenantId, baseId);
  const results: BenchResult[] = [];
  let hybridRecall = 0;
  for (const [label, search] of Object.entries(rankings)) {
    const all = await recallAtK(questions, search, 5);
    const en = await recallAtK(
      questions.filter((q) => !q.chinese),
      search,
      5,
    );
    const zh = await recallAtK(
      questions.filter((q) => q.chinese),
      search,
      5,
    );
    if (label === 'hybrid') hybridRecall = all.recall;
    results.push({
      name: `retrieval quality: recall@5, ${label}`,
      unit: 'share',
      median: all.recall,
      p99: all.recall,
      ...(label === 'hybrid' ? {} : { ratio: all.recall / hybridRecall }),
      note: `${all.found}/${all.total} questions; MRR ${all.mrr.toFixed(3)}; English ${en.found}/${en.total} (MRR ${en.mrr.toFixed(3)}), Chinese ${zh.found}/${zh.total} (MRR ${zh.mrr.toFixed(3)}); corpus of ${files.size} documents → ${chunks} chunks via ingestDocument, ${MODEL} ${DIMENSIONS} dims, ${mode} vector path, Postgres${label === 'hybrid' ? '' : '; ratio = vs hybrid recall'}`,
    });
  }
  return results;
}

/**
 * The knowledge benchmark: ingestion rate, search latency at 100,000 chunks (Postgres) and 10,000
 * (PGlite), recall@5 of the labelled set. Environment: KB_PDF_PAGES (50), KB_PDF_RUNS (5),
 * KB_HTML_PAGES (50), KB_PG_CHUNKS (100000), KB_PGLITE_CHUNKS (10000), KB_PG_QUERIES (30),
 * KB_PGLITE_QUERIES (40), KB_CHUNK_WORDS (120), KB_PHASES (all of `ingestion,retrieval,postgres,pglite`;
 * e.g. `retrieval` measures only recall@5).
 */
export async function run(): Promise<BenchResult[]> {
  const phases = new Set(envText('KB_PHASES', 'ingestion,retrieval,postgres,pglite').split(','));
  const results: BenchResult[] = [];
  if (phases.has('ingestion') || phases.has('retrieval') || phases.has('postgres')) {
    const pg = await freshPostgres();
    try {
      const { db } = pg.database;
      if (phases.has('ingestion')) results.push(...(await phase(() => ingestion(db))));
      if (phases.has('retrieval')) results.push(...(await phase(() => retrieval(db))));
      if (phases.has('postgres'))
        results.push(...(await phase(() => searchLatency(db, 'Postgres 15', PG_CHUNKS, PG_QUERIES))));
    } finally {
      await pg.drop();
    }
  }
  if (phases.has('pglite')) {
    const lite = await openDatabase({ kind: 'pglite' });
    try {
      results.push(...(await phase(() => searchLatency(lite.db, 'PGlite (embedded)', PGLITE_CHUNKS, PGLITE_QUERIES))));
    } finally {
      await lite.close();
    }
  }
  return results;
}

/**
 * Runs one scenario and adds to each of its notes how busy the machine was meanwhile (all cores,
 * /proc/stat) and how much of it was this process: the rest is this bench's Postgres backends and
 * everything else on the shared cores.
 */
async function phase(fn: () => Promise<BenchResult[]>): Promise<BenchResult[]> {
  const machine = machineCpuMs();
  const own = process.cpuUsage();
  const load = os.loadavg()[0]!;
  const started = performance.now();
  const results = await fn();
  const after = machineCpuMs();
  const used = process.cpuUsage(own);
  const total = after.total - machine.total;
  const percent = (ms: number) => Math.round((100 * ms) / total);
  const context = `phase ${Math.round((performance.now() - started) / 1000)} s: machine ${percent(after.busy - machine.busy)}% busy over ${os.cpus().length} cores (this process ${percent((used.user + used.system) / 1000)}%), load average ${load.toFixed(1)} → ${os.loadavg()[0]!.toFixed(1)}`;
  return results.map((r) => ({ ...r, note: `${r.note}; ${context}` }));
}
