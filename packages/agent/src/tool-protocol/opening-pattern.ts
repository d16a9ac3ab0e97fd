/** One piece of an opening pattern: literal text, optional literal text, or optional whitespace. */
export type PatternToken = { lit: string } | { opt: string } | { ws: true };

/** Result of matching an opening at a position: no, not yet decidable, or matched up to `end`. */
export type OpeningMatch = { status: 'no' } | { status: 'partial' } | { status: 'open'; end: number };

/**
 * Matches `tokens` at `text[start]`. When the text ends before the pattern is decided the answer is
 * 'partial', so a streaming scanner knows to wait for more text instead of emitting it.
 *
 * @example
 * matchOpening('x <tool_c', 2, [{ lit: '<tool_code>' }]); // { status: 'partial' }
 */
export function matchOpening(text: string, start: number, tokens: PatternToken[]): OpeningMatch {
  let pos = start;
  for (const token of tokens) {
    if ('ws' in token) {
      while (pos < text.length && /\s/.test(text[pos]!)) pos++;
      if (pos === text.length) return { status: 'partial' };
      continue;
    }
    const literal = 'lit' in token ? token.lit : token.opt;
    const available = text.length - pos;
    const compared = Math.min(available, literal.length);
    const matches = text.startsWith(literal.slice(0, compared), pos);
    if (matches && compared === literal.length) {
      pos += literal.length;
      continue;
    }
    if (matches) return { status: 'partial' };
    if ('lit' in token) return { status: 'no' };
  }
  return { status: 'open', end: pos };
}
