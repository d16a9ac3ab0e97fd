import { measureText, type TokenMeasure, tokensOf } from './token-estimate.ts';

/** A stretch of a section's text, and what joins it to the piece before it in a chunk. */
export interface Piece {
  text: string;
  /** `\n\n` between paragraphs, `` between the sentences and fragments of one paragraph. */
  separator: string;
  measure: TokenMeasure;
}

const sentences = new Intl.Segmenter(undefined, { granularity: 'sentence' });

/**
 * A section's text as pieces of at most `budget` tokens each: whole paragraphs where they fit,
 * else their sentences (Intl.Segmenter, so `。！？` end sentences too), else hard splits (at the
 * last whitespace that fits, else mid-word). Joining the pieces with their separators gives the
 * paragraphs back; no text is lost.
 */
export function splitIntoPieces(text: string, budget: number): Piece[] {
  const pieces: Piece[] = [];
  for (const paragraph of text.split(/\n[^\S\n]*\n\s*/)) {
    const trimmed = paragraph.trim();
    if (!trimmed) continue;
    let separator = '\n\n';
    for (const part of fitParagraph(trimmed, budget)) {
      pieces.push({ text: part, separator, measure: measureText(part) });
      separator = '';
    }
  }
  return pieces;
}

function fitParagraph(paragraph: string, budget: number): string[] {
  if (tokensOf(measureText(paragraph)) <= budget) return [paragraph];
  const out: string[] = [];
  for (const { segment } of sentences.segment(paragraph)) {
    if (tokensOf(measureText(segment)) <= budget) out.push(segment);
    else out.push(...hardSplit(segment, budget));
  }
  return out;
}

/** Splits a too-long sentence into slices of at most `budget` tokens, preferring whitespace. */
export function hardSplit(text: string, budget: number): string[] {
  const out: string[] = [];
  let rest = text;
  // The measure is additive: keep the remainder's by subtraction instead of rescanning it per cut.
  let restMeasure = measureText(rest);
  while (rest && tokensOf(restMeasure) > budget) {
    const fit = longestFittingPrefix(rest, budget);
    const space = rest.slice(0, fit).search(/\s\S*$/);
    let cut = space > 0 && fit < rest.length ? space + 1 : fit;
    // Never split a surrogate pair.
    const code = rest.charCodeAt(cut - 1);
    if (cut > 1 && code >= 0xd800 && code <= 0xdbff) cut--;
    // Whitespace after the cut goes with the head (a chunk's end is trimmed): the next slice starts
    // at a word, so a word that fits the budget is never split for the space in front of it.
    while (cut < rest.length && /\s/.test(rest[cut]!)) cut++;
    const head = rest.slice(0, cut);
    const headMeasure = measureText(head);
    out.push(head);
    rest = rest.slice(cut);
    restMeasure = { wide: restMeasure.wide - headMeasure.wide, other: restMeasure.other - headMeasure.other };
  }
  if (rest) out.push(rest);
  return out;
}

/** The length of the longest prefix within `budget` tokens (at least one character). */
function longestFittingPrefix(text: string, budget: number): number {
  let measure: TokenMeasure = { wide: 0, other: 0 };
  let at = 0;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    const width = code >= 0xd800 && code <= 0xdbff && at + 1 < text.length ? 2 : 1;
    const char = measureText(text.slice(at, at + width));
    const next = { wide: measure.wide + char.wide, other: measure.other + char.other };
    if (tokensOf(next) > budget) break;
    measure = next;
    at += width;
  }
  return Math.max(1, at);
}
