// The knowledge bench's inputs, all built at run time from the labelled set in bench/knowledge/:
// its questions, its corpus as documents, a pool of its sentences, generated PDFs, HTML pages and
// chunks. Relative imports: the workspace root does not depend on these packages.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NewKnowledgeChunk } from '../../packages/db/src/index.ts';
import { embeddedText, parseRetrievalQuestions, type RetrievalQuestion } from '../../packages/knowledge/src/index.ts';
import { makePdf } from '../../packages/knowledge/src/test-support/make-documents.ts';
import { hashEmbedding, lexicalFeatures } from '../../packages/provider-demo/src/index.ts';

const SET_DIR = fileURLToPath(new URL('../knowledge/', import.meta.url));
const CJK = /\p{Script=Han}/u;

/** The 50 labelled questions, each marked English or Chinese. */
export function loadQuestions(): Array<RetrievalQuestion & { chinese: boolean }> {
  const questions = parseRetrievalQuestions(JSON.parse(readFileSync(join(SET_DIR, 'questions.json'), 'utf8')));
  return questions.map((q) => ({ ...q, chinese: CJK.test(q.question) }));
}

/** The corpus files: name, bytes and format as an upload would carry them. */
export function loadCorpus(): Array<{ filename: string; bytes: Uint8Array; format: 'markdown' | 'html' }> {
  return readdirSync(join(SET_DIR, 'corpus'))
    .sort()
    .map((filename) => ({
      filename,
      bytes: readFileSync(join(SET_DIR, 'corpus', filename)),
      format: filename.endsWith('.html') ? ('html' as const) : ('markdown' as const),
    }));
}

/** The English sentences of the corpus (markup stripped), a pool to generate realistic text from. */
export function sentencePool(): string[] {
  const sentences: string[] = [];
  for (const { filename, bytes } of loadCorpus()) {
    let text = Buffer.from(bytes).toString('utf8');
    if (filename.endsWith('.html')) text = text.replace(/<[^>]+>/g, ' ');
    text = text.replace(/^#{1,6}\s.*$/gm, ' ').replace(/\*\*|[_|`]/g, '');
    for (const sentence of text.split(/(?<=[.!?])\s+/)) {
      const clean = sentence.replace(/\s+/g, ' ').trim();
      if (clean.length > 30 && !CJK.test(clean)) sentences.push(clean);
    }
  }
  return sentences;
}

/** A small deterministic PRNG (mulberry32): the same run writes the same data. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VARIANTS = ['Northwind', 'members', 'the store', 'online', 'in person', 'this season', 'by email', 'abroad'];

/**
 * Text of about `words` words: pool sentences drawn at random, one in three varied (a number
 * changed, a phrase appended) so 100,000 chunks are not 100,000 copies of 400 sentences.
 */
export function generatedText(pool: readonly string[], next: () => number, words: number): string {
  const parts: string[] = [];
  let count = 0;
  while (count < words) {
    let sentence = pool[Math.floor(next() * pool.length)]!;
    const roll = next();
    if (roll < 0.15) sentence = sentence.replace(/\d+/, () => String(1 + Math.floor(next() * 500)));
    else if (roll < 0.33) sentence = `${sentence.slice(0, -1)}, ${VARIANTS[Math.floor(next() * VARIANTS.length)]}.`;
    parts.push(sentence);
    count += sentence.split(' ').length;
  }
  return parts.join(' ');
}

/** Wraps text into lines of at most `width` characters (a PDF page draws lines, not paragraphs). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** A PDF of `pages` A4 pages, each a heading and ~`wordsPerPage` words of corpus prose in 11-pt Helvetica. */
export async function generatedPdf(pool: readonly string[], pages: number, wordsPerPage: number): Promise<Uint8Array> {
  const next = random(7);
  return makePdf(
    Array.from({ length: pages }, (_, i) => ({
      heading: `Chapter ${i + 1}`,
      // The standard fonts encode WinAnsi only: other characters (arrows, dashes) become '-'.
      lines: wrap(generatedText(pool, next, wordsPerPage).replace(/[^\x20-\x7e\xa0-\xff]/g, '-'), 95).slice(0, 44),
    })),
    { title: 'Northwind Outfitters handbook' },
  );
}

/**
 * An HTML help-centre page: navigation, footer, and an article of `sections` `h2` sections of
 * ~`wordsPerSection` words in paragraphs (what a crawl fetches).
 */
export function generatedHtmlPage(
  pool: readonly string[],
  seed: number,
  sections: number,
  wordsPerSection: number,
): string {
  const next = random(seed);
  const body = Array.from(
    { length: sections },
    (_, i) =>
      `<h2>Topic ${seed}.${i + 1}</h2><p>${generatedText(pool, next, wordsPerSection / 2)}</p><p>${generatedText(pool, next, wordsPerSection / 2)}</p>`,
  ).join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Help page ${seed}</title></head><body><nav class="menu"><a href="/">Home</a> <a href="/help">Help</a> <a href="/stores">Stores</a></nav><main><article><h1>Help page ${seed}</h1>${body}</article></main><footer>Copyright 2026 Northwind Outfitters. All rights reserved. Cookie settings.</footer></body></html>`;
}

/**
 * `count` chunks as ingestion builds them (`ingestDocument`: embedded as title, headings and text
 * with `local/hashing-v1`; full-text features of the same), from generated text of ~`words` words.
 */
export function generatedChunks(
  pool: readonly string[],
  next: () => number,
  options: { count: number; words: number; title: string; dimensions: number },
): NewKnowledgeChunk[] {
  return Array.from({ length: options.count }, (_, index) => {
    const text = generatedText(pool, next, options.words);
    const headingPath = [options.title, `Section ${Math.floor(index / 8) + 1}`];
    const context = `${options.title}\n${headingPath.join('\n')}\n${text}`;
    return {
      index,
      text,
      headingPath,
      page: null,
      tokens: Math.round(options.words * 1.3),
      embedding: hashEmbedding(embeddedText(options.title, { headingPath, text }), options.dimensions),
      features: lexicalFeatures(context),
    };
  });
}
