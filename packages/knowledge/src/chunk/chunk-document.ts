import type { ChunkOptions, DocumentChunk, ExtractedDocument, ExtractedSection } from '../types.ts';
import { type Piece, splitIntoPieces } from './split-text.ts';
import { countTokens, measureChar, measureText, type TokenMeasure, tokensOf } from './token-estimate.ts';

/** The chunk size the store uses unless a base says otherwise. */
export const DEFAULT_CHUNK_OPTIONS: ChunkOptions = { maxTokens: 400, overlapTokens: 60 };

/** A last chunk of a section smaller than this share of `maxTokens` takes pieces from the one before. */
const SMALL_TAIL = 0.25;

/**
 * Splits a document into chunks, structure-aware: a chunk never spans two sections (it carries its
 * section's heading path and page), sections split at paragraphs, then sentences, then hard splits;
 * every chunk has at most `maxTokens` tokens ({@link countTokens}), and each chunk after the first
 * of a section starts with up to `overlapTokens` tokens of the previous chunk's end.
 *
 * @example
 * const chunks = chunkDocument(doc, { maxTokens: 400, overlapTokens: 60 });
 */
export function chunkDocument(doc: ExtractedDocument, options: ChunkOptions): DocumentChunk[] {
  const maxTokens = Math.max(1, Math.floor(options.maxTokens));
  const overlapTokens = Math.max(0, Math.min(Math.floor(options.overlapTokens), Math.floor(maxTokens / 2)));
  const chunks: DocumentChunk[] = [];
  for (const section of doc.sections) {
    for (const text of chunkSection(section, maxTokens, overlapTokens)) {
      chunks.push({
        index: chunks.length,
        text,
        headingPath: section.headingPath,
        page: section.page,
        tokens: countTokens(text),
      });
    }
  }
  return chunks;
}

function chunkSection(section: ExtractedSection, maxTokens: number, overlapTokens: number): string[] {
  // Leave room for an overlap (plus the blank line after it) in front of every piece.
  const budget = overlapTokens > 0 ? Math.max(1, maxTokens - overlapTokens - 1) : maxTokens;
  const groups = packPieces(splitIntoPieces(section.text, budget), budget);
  rebalanceTail(groups, budget, maxTokens);
  const texts: string[] = [];
  groups.forEach((group, at) => {
    const body = joinPieces(group);
    const previous = groups[at - 1];
    const overlap = previous && overlapTokens > 0 ? tailOf(joinPieces(previous), overlapTokens) : '';
    const text = overlap ? `${overlap}${group[0]?.separator || ' '}${body}` : body;
    texts.push(text.trim());
  });
  return texts.filter((text) => text.length > 0);
}

function packPieces(pieces: Piece[], budget: number): Piece[][] {
  const groups: Piece[][] = [];
  let group: Piece[] = [];
  let size: TokenMeasure = { wide: 0, other: 0 };
  for (const piece of pieces) {
    const next = add(add(size, measureText(group.length ? piece.separator : '')), piece.measure);
    if (group.length && tokensOf(next) > budget) {
      groups.push(group);
      group = [piece];
      size = piece.measure;
    } else {
      group.push(piece);
      size = next;
    }
  }
  if (group.length) groups.push(group);
  return groups;
}

/** Moves pieces from the second-last group to a tiny last group while both stay within bounds. */
function rebalanceTail(groups: Piece[][], budget: number, maxTokens: number): void {
  const last = groups.at(-1);
  const before = groups.at(-2);
  if (!last || !before) return;
  const small = maxTokens * SMALL_TAIL;
  while (before.length > 1 && countTokens(joinPieces(last)) < small) {
    const moved = before[before.length - 1] as Piece;
    const candidate = [moved, ...last];
    if (countTokens(joinPieces(candidate)) > budget) return;
    if (countTokens(joinPieces(candidate)) >= countTokens(joinPieces(before.slice(0, -1)))) return;
    before.pop();
    last.unshift(moved);
  }
}

function joinPieces(group: Piece[]): string {
  return group.map((piece, at) => (at === 0 ? piece.text : piece.separator + piece.text)).join('');
}

/** The end of a text within `tokens` tokens, starting at a word boundary where there is one. */
function tailOf(text: string, tokens: number): string {
  const trimmed = text.trimEnd();
  let start = trimmed.length;
  let measure: TokenMeasure = { wide: 0, other: 0 };
  while (start > 0) {
    const low = trimmed.charCodeAt(start - 1);
    const width = low >= 0xdc00 && low <= 0xdfff && start > 1 ? 2 : 1; // a whole surrogate pair
    const next = add(measure, measureChar(trimmed.slice(start - width, start)));
    if (tokensOf(next) > tokens) break;
    measure = next;
    start -= width;
  }
  const tail = trimmed.slice(start);
  if (start === 0) return tail.trim();
  // Starting mid-word would repeat a fragment: begin after the first whitespace, if any.
  const space = tail.search(/\s/);
  return (space >= 0 && space < tail.length - 1 ? tail.slice(space + 1) : tail).trim();
}

function add(a: TokenMeasure, b: TokenMeasure): TokenMeasure {
  return { wide: a.wide + b.wide, other: a.other + b.other };
}
