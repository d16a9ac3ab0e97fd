import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ExtractedDocument } from '../types.ts';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from './chunk-document.ts';
import { countTokens } from './token-estimate.ts';

const doc = (sections: ExtractedDocument['sections']): ExtractedDocument => ({
  title: null,
  sections,
  pages: null,
  links: [],
});

describe('countTokens', () => {
  it('counts Latin text by four characters and CJK by character', () => {
    expect(countTokens('Refunds take 14 days')).toBe(5);
    expect(countTokens('退款需要十四天')).toBe(7);
    expect(countTokens('')).toBe(0);
  });
});

describe('chunkDocument', () => {
  it('keeps a small section whole, with its heading path and page', () => {
    const chunks = chunkDocument(
      doc([
        { headingPath: ['Guide', 'Refunds'], text: 'Refunds take 14 days.\n\nAsk support.', page: 3 },
        { headingPath: ['Guide', 'Shipping'], text: 'Ships in 2 days.', page: 4 },
      ]),
      DEFAULT_CHUNK_OPTIONS,
    );
    expect(chunks).toEqual([
      {
        index: 0,
        text: 'Refunds take 14 days.\n\nAsk support.',
        headingPath: ['Guide', 'Refunds'],
        page: 3,
        tokens: 9,
      },
      { index: 1, text: 'Ships in 2 days.', headingPath: ['Guide', 'Shipping'], page: 4, tokens: 4 },
    ]);
  });

  it('splits long sections by sentences, Chinese ones too, with overlap from the previous chunk', () => {
    const sentence = '我们的退款政策规定所有订单在收货后十四天内可以申请退款。';
    const chunks = chunkDocument(doc([{ headingPath: ['退款'], text: sentence.repeat(30), page: null }]), {
      maxTokens: 100,
      overlapTokens: 20,
    });
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) expect(chunk.tokens).toBeLessThanOrEqual(100);
    // Sentence boundaries: every chunk's own part ends with a full stop.
    for (const chunk of chunks) expect(chunk.text.endsWith('。')).toBe(true);
    const [first, second] = chunks;
    const tail = first!.text.slice(-10);
    expect(second!.text.includes(tail)).toBe(true);
  });

  it('hard-splits a word longer than a chunk without losing characters', () => {
    const word = 'x'.repeat(5000);
    const chunks = chunkDocument(doc([{ headingPath: [], text: word, page: null }]), {
      maxTokens: 100,
      overlapTokens: 0,
    });
    expect(chunks.map((c) => c.text).join('')).toBe(word);
    for (const chunk of chunks) expect(chunk.tokens).toBeLessThanOrEqual(100);
  });

  it('splits huge unbroken text in bounded time', () => {
    // Quadratic splitting would take minutes here; the bound is loose for a busy machine.
    for (const text of ['x'.repeat(1_000_000), '退'.repeat(500_000), '𠀀'.repeat(100_000)]) {
      const began = performance.now();
      const chunks = chunkDocument(doc([{ headingPath: [], text, page: null }]), DEFAULT_CHUNK_OPTIONS);
      expect(performance.now() - began).toBeLessThan(30_000);
      for (const chunk of chunks) expect(chunk.tokens).toBeLessThanOrEqual(400);
      expect(chunks.every((chunk) => chunk.text.isWellFormed())).toBe(true);
    }
  });

  it('merges a tiny tail into a fuller last chunk', () => {
    const paragraphs = Array.from({ length: 9 }, (_, i) => `Paragraph ${i} ${'word '.repeat(18)}`.trim());
    const chunks = chunkDocument(doc([{ headingPath: [], text: paragraphs.join('\n\n'), page: null }]), {
      maxTokens: 100,
      overlapTokens: 0,
    });
    expect(chunks.at(-1)!.tokens).toBeGreaterThanOrEqual(25);
  });

  it('skips empty sections', () => {
    expect(chunkDocument(doc([{ headingPath: ['Empty'], text: ' \n\n ', page: null }]), DEFAULT_CHUNK_OPTIONS)).toEqual(
      [],
    );
  });

  const word = fc.oneof(
    fc.stringMatching(/^[a-z]{1,12}$/),
    fc.stringMatching(/^[a-z]{40,300}$/),
    fc.string({ unit: fc.constantFrom('退', '款', '政', '策', '。', '！', '？', '𠀀'), minLength: 1, maxLength: 40 }),
    fc.constantFrom('Hello.', 'Why?', 'End!', '42'),
  );
  const paragraph = fc.array(word, { maxLength: 80 }).map((words) => words.join(' '));
  const section = fc.record({
    headingPath: fc.array(fc.stringMatching(/^[A-Z][a-z]{0,6}$/), { maxLength: 3 }),
    text: fc.array(paragraph, { maxLength: 6 }).map((ps) => ps.join('\n\n')),
    page: fc.option(fc.integer({ min: 1, max: 50 }), { nil: null }),
  });
  const options = fc
    .record({ maxTokens: fc.integer({ min: 8, max: 300 }), overlapTokens: fc.integer({ min: 0, max: 100 }) })
    .filter((o) => o.overlapTokens < o.maxTokens);

  it('bounds every chunk, keeps order and sections, and loses no word (property)', () => {
    fc.assert(
      fc.property(fc.array(section, { maxLength: 6 }), options, (sections, opts) => {
        const chunks = chunkDocument(doc(sections), opts);
        chunks.forEach((chunk, at) => {
          expect(chunk.index).toBe(at);
          expect(chunk.tokens).toBe(countTokens(chunk.text));
          expect(chunk.tokens).toBeLessThanOrEqual(opts.maxTokens);
          expect(chunk.text.trim()).toBe(chunk.text);
          expect(chunk.text.length).toBeGreaterThan(0);
        });
        // Chunks follow the sections in order, each chunk inside one section.
        let at = 0;
        for (const s of sections) {
          const own = [];
          while (at < chunks.length && chunks[at]!.headingPath === s.headingPath) own.push(chunks[at++]!);
          for (const chunk of own) expect(chunk.page).toBe(s.page);
          const text = own.map((c) => c.text).join('\n');
          const budget = opts.maxTokens - opts.overlapTokens - 1;
          // A word is whitespace-delimited; a CJK sentence end also ends one (a chunk may begin after it).
          for (const w of s.text.split(/\s+|(?<=[。！？])/).filter(Boolean)) {
            if (countTokens(w) <= budget) expect(text).toContain(w);
            else expect(text.replace(/\s/g, '')).toContain(w.slice(0, 4));
          }
          // Overlap stays within a section: its first chunk starts at the section's own text.
          if (own[0]) expect(s.text.replace(/\s/g, '').startsWith(own[0].text.replace(/\s/g, ''))).toBe(true);
          // Without overlap, the chunks are exactly the section's text (whitespace aside).
          if (opts.overlapTokens === 0) expect(text.replace(/\s/g, '')).toBe(s.text.replace(/\s/g, ''));
        }
        expect(at).toBe(chunks.length);
      }),
      {
        numRuns: 300,
        examples: [
          [[{ headingPath: [], text: 'aaaaaaaaaaaa aaaaaaaaaaab', page: null }], { maxTokens: 8, overlapTokens: 4 }],
        ],
      },
    );
  });
});
