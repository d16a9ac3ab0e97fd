import type { Message, SourceCitation } from '@agentry/llm';
import type { SourceLedger } from './knowledge-sources.ts';

/** Markers are small numbers; longer digit runs (years, ids in brackets) are not markers. */
const MARKER = /\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\](?!\()/g;
const MAX_SNIPPET_CHARS = 500;

/**
 * The `[n]` and `[n, m]` markers of an answer, each once, in order of first appearance. A bracket
 * followed by `(` is a Markdown link, not a marker.
 *
 * @example
 * citationMarkers('Refunds take 5 days [2]; see also [1, 2].'); // [2, 1]
 */
export function citationMarkers(text: string): number[] {
  const seen = new Set<number>();
  for (const match of text.matchAll(MARKER)) {
    for (const digits of match[1]!.split(',')) {
      const n = Number(digits.trim());
      if (n > 0) seen.add(n);
    }
  }
  return [...seen];
}

/**
 * The citations of an answer: its markers that name a numbered source, in order of first
 * appearance. A marker that names none stays in the text and gets no citation.
 *
 * @example
 * citationsFor('Refunds take 5 days [1].', ledger); // [{ marker: 1, document_id, title, snippet, … }]
 */
export function citationsFor(text: string, ledger: SourceLedger): SourceCitation[] {
  if (ledger.size === 0) return [];
  return citationMarkers(text).flatMap((marker) => {
    const source = ledger.cited(marker);
    if (!source) return [];
    return [
      {
        marker,
        document_id: source.document_id,
        knowledge_base_id: source.knowledge_base_id,
        title: source.title,
        url: source.url,
        page: source.page !== null && source.page > 0 ? source.page : null,
        heading_path: source.heading_path,
        snippet: source.text.trim().slice(0, MAX_SNIPPET_CHARS),
      },
    ];
  });
}

/**
 * The answer with its citations attached to its last text part (a copy; the answer as given when
 * it cites nothing).
 *
 * @example
 * const stored = withCitations(answer, citationsFor(textOf(answer), ledger));
 */
export function withCitations(message: Message, citations: SourceCitation[]): Message {
  const last = message.content.findLastIndex((p) => p.type === 'text');
  if (citations.length === 0 || last < 0) return message;
  return {
    ...message,
    content: message.content.map((part, i) => (i === last && part.type === 'text' ? { ...part, citations } : part)),
  };
}
