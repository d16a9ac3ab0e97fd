import type { KnowledgeHit } from '@agentry/knowledge';
import type { Message } from '@agentry/llm';

/** The built-in tool that searches an agent's knowledge bases (the config loader reserves the name). */
export const SEARCH_KNOWLEDGE = 'search_knowledge';

/** At most this many characters of one passage go to the model; the listing as a whole is bounded too. */
const MAX_PASSAGE_CHARS = 2000;
const MAX_LISTING_CHARS = 16_000;

/** A numbered source as a `search_knowledge` result stores it (the passage itself is in `results`). */
export interface KnowledgeSourceRef {
  n: number;
  chunk_id: string;
  document_id: string;
  knowledge_base_id: string;
  title: string;
  heading_path: string[];
  page: number | null;
  url: string | null;
  score: number;
}

/**
 * The output of a `search_knowledge` call: the listing the model reads (`[n] title — heading (page p)`
 * then the passage, for each hit) and the sources' facts, which number the answer's citations and
 * show in traces.
 */
export interface KnowledgeSearchOutput {
  results: string;
  sources: KnowledgeSourceRef[];
}

/** A source as citations see it: its facts and its passage. */
export interface KnowledgeSource extends KnowledgeSourceRef {
  text: string;
}

/**
 * The numbers of a conversation's sources: the same chunk keeps its number, a new one takes the
 * next. Built from the transcript's `search_knowledge` results (so a resumed run numbers as the
 * first attempt did) and fed each result as it comes.
 *
 * @example
 * const ledger = createSourceLedger(history);
 * const output = ledger.list(hits); // numbers new hits, keeps known ones
 * ledger.cited(3); // the source [3], if any
 */
export interface SourceLedger {
  /** Numbers hits (known chunks keep theirs) and builds the tool's output. */
  list(hits: readonly KnowledgeHit[]): KnowledgeSearchOutput;
  /** Takes in a result seen in the transcript or replayed from a record. */
  observe(output: unknown): void;
  /** The source numbered `n`, if any. */
  cited(n: number): KnowledgeSource | undefined;
  /** How many sources are numbered. */
  readonly size: number;
}

export function createSourceLedger(history: readonly Message[] = []): SourceLedger {
  const byChunk = new Map<string, number>();
  const byNumber = new Map<number, KnowledgeSource>();
  let next = 1;
  const remember = (source: KnowledgeSource) => {
    if (!byChunk.has(source.chunk_id) && !byNumber.has(source.n)) {
      byChunk.set(source.chunk_id, source.n);
      byNumber.set(source.n, source);
    }
    next = Math.max(next, source.n + 1);
  };
  const ledger: SourceLedger = {
    list(hits) {
      const sources = hits.map((hit) => {
        const n = byChunk.get(hit.chunkId) ?? next;
        const source: KnowledgeSource = {
          n,
          chunk_id: hit.chunkId,
          document_id: hit.documentId,
          knowledge_base_id: hit.knowledgeBaseId,
          title: hit.title,
          heading_path: hit.headingPath,
          page: hit.page,
          url: hit.url,
          score: roundScore(hit.score),
          text: hit.text.slice(0, MAX_PASSAGE_CHARS),
        };
        remember(source);
        return source;
      });
      return listing(sources);
    },
    observe(output) {
      for (const source of sourcesOf(output)) remember(source);
    },
    cited: (n) => byNumber.get(n),
    get size() {
      return byNumber.size;
    },
  };
  for (const message of history) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool_result' && part.toolName === SEARCH_KNOWLEDGE) ledger.observe(part.output);
    }
  }
  return ledger;
}

/** The header line of a source in the listing: `[n] title — heading › path (page p)`. */
export function sourceHeader(source: Pick<KnowledgeSourceRef, 'n' | 'title' | 'heading_path' | 'page'>): string {
  const heading = source.heading_path.length > 0 ? ` — ${source.heading_path.join(' › ')}` : '';
  const page = source.page !== null ? ` (page ${source.page})` : '';
  return `[${source.n}] ${source.title}${heading}${page}`;
}

/** The listing of the sources, bounded: sources that do not fit are left out of both parts. */
function listing(sources: readonly KnowledgeSource[]): KnowledgeSearchOutput {
  if (sources.length === 0) return { results: 'No passages of the knowledge bases match this query.', sources: [] };
  const blocks: string[] = [];
  const kept: KnowledgeSourceRef[] = [];
  let size = 0;
  for (const source of sources) {
    const block = `${sourceHeader(source)}\n${source.text}`;
    if (kept.length > 0 && size + block.length > MAX_LISTING_CHARS) break;
    blocks.push(block);
    size += block.length + 2;
    const { text: _text, ...ref } = source;
    kept.push(ref);
  }
  return { results: blocks.join('\n\n'), sources: kept };
}

/**
 * The sources of a stored result with their passages, read back from its listing: each passage runs
 * from its header to the next source's header. Anything malformed (a hand-edited transcript, an
 * older shape) yields nothing rather than a wrong source.
 */
export function sourcesOf(output: unknown): KnowledgeSource[] {
  if (!isObject(output) || typeof output.results !== 'string' || !Array.isArray(output.sources)) return [];
  const results = output.results;
  const refs = output.sources.filter(isSourceRef);
  const out: KnowledgeSource[] = [];
  let from = 0;
  refs.forEach((ref, i) => {
    const header = `${sourceHeader(ref)}\n`;
    const at = results.indexOf(header, from);
    if (at < 0) return;
    const start = at + header.length;
    const following = refs[i + 1];
    const end = following ? results.indexOf(`\n\n${sourceHeader(following)}\n`, start) : -1;
    const text = results.slice(start, end < 0 ? results.length : end);
    from = start + text.length;
    out.push({ ...ref, text });
  });
  return out;
}

function isSourceRef(value: unknown): value is KnowledgeSourceRef {
  if (!isObject(value)) return false;
  return (
    Number.isSafeInteger(value.n) &&
    (value.n as number) > 0 &&
    typeof value.chunk_id === 'string' &&
    typeof value.document_id === 'string' &&
    typeof value.knowledge_base_id === 'string' &&
    typeof value.title === 'string' &&
    Array.isArray(value.heading_path) &&
    value.heading_path.every((h) => typeof h === 'string') &&
    (value.page === null || Number.isSafeInteger(value.page)) &&
    (value.url === null || typeof value.url === 'string')
  );
}

function roundScore(score: number): number {
  return Number.isFinite(score) ? Math.round(score * 10_000) / 10_000 : 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
