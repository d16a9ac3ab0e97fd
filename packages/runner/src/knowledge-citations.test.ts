import type { KnowledgeHit } from '@agentry/knowledge';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { citationMarkers, citationsFor, withCitations } from './knowledge-citations.ts';
import { createSourceLedger, SEARCH_KNOWLEDGE, sourcesOf } from './knowledge-sources.ts';

const hit = (n: number, over: Partial<KnowledgeHit> = {}): KnowledgeHit => ({
  chunkId: `c${n}`,
  documentId: `d${n}`,
  knowledgeBaseId: 'b',
  title: `Doc ${n}`,
  headingPath: n % 2 ? ['A', 'B'] : [],
  page: n % 3 ? n : null,
  url: null,
  text: `Passage ${n} [${n}]\n\n[${n + 1}] looks like a header but is text.`,
  score: 0.5,
  ...over,
});

describe('citation markers', () => {
  it('reads [n] and [n, m], once each, in order of first appearance; links and long numbers are not markers', () => {
    expect(citationMarkers('A [2]. B [1, 2]. C [3,4] D [0] E [12345] F [5](https://x) G [ 6 ]')).toEqual([2, 1, 3, 4]);
  });

  it('never throws on arbitrary text, and markers outside the numbered sources get no citation', () => {
    const ledger = createSourceLedger();
    ledger.list([hit(1), hit(2), hit(3)]);
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 400 }),
        fc.array(fc.integer({ min: -5, max: 20_000 })),
        (noise, numbers) => {
          const answer = `${noise}${numbers.map((n) => `[${n}]`).join(' ')}`;
          const cited = citationsFor(answer, ledger);
          for (const citation of cited) expect([1, 2, 3]).toContain(citation.marker);
          expect(new Set(cited.map((c) => c.marker)).size).toBe(cited.length);
          for (const n of numbers) if (n >= 1 && n <= 3) expect(cited.map((c) => c.marker)).toContain(n);
        },
      ),
    );
  });
});

describe('the source ledger', () => {
  it('keeps a chunk’s number, gives new chunks the next, and reads the numbers back from a transcript', () => {
    const ledger = createSourceLedger();
    const first = ledger.list([hit(1), hit(2)]);
    const second = ledger.list([hit(3), hit(1)]);
    expect(first.sources.map((s) => s.n)).toEqual([1, 2]);
    expect(second.sources.map((s) => s.n)).toEqual([3, 1]);
    // Passages that hold what looks like headers are read back whole.
    expect(sourcesOf(second).map((s) => s.text)).toEqual([hit(3).text, hit(1).text]);
    const resumed = createSourceLedger([
      { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'x', toolName: SEARCH_KNOWLEDGE, output: first }] },
      { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'y', toolName: 'other', output: second }] },
    ]);
    expect(resumed.list([hit(2), hit(4)]).sources.map((s) => s.n)).toEqual([2, 3]);
    expect(resumed.cited(1)?.text).toBe(hit(1).text);
  });

  it('ignores malformed stored results instead of numbering wrong sources', () => {
    fc.assert(
      fc.property(fc.anything(), (output) => {
        const ledger = createSourceLedger([
          { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'x', toolName: SEARCH_KNOWLEDGE, output }] },
        ]);
        expect(ledger.size).toBeGreaterThanOrEqual(0);
      }),
    );
    expect(sourcesOf({ results: 'x', sources: [{ n: 1 }] })).toEqual([]);
  });

  it('bounds the listing and the snippet', () => {
    const ledger = createSourceLedger();
    const big = Array.from({ length: 20 }, (_, i) => hit(i + 1, { text: 'x'.repeat(5000) }));
    const output = ledger.list(big);
    expect(output.results.length).toBeLessThanOrEqual(16_000 + 200);
    expect(output.sources.length).toBeLessThan(20);
    const [citation] = citationsFor('[1]', ledger);
    expect(citation?.snippet.length).toBe(500);
  });

  it('attaches citations to the answer’s last text part, and leaves an answer without them as it was', () => {
    const answer = { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'a [1]' }] };
    expect(withCitations(answer, [])).toBe(answer);
    const ledger = createSourceLedger();
    ledger.list([hit(1)]);
    const cited = withCitations(answer, citationsFor('a [1]', ledger));
    expect(cited.content[0]).toMatchObject({ type: 'text', text: 'a [1]', citations: [{ marker: 1, title: 'Doc 1' }] });
  });
});
