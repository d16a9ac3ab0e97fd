import type { KnowledgeDocumentFormat } from '@agentry/contract/schemas';
import { isAppError } from '@agentry/errors';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeDocx, makePdf } from '../test-support/make-documents.ts';
import { extractDocument } from './extract-document.ts';

const FORMATS: KnowledgeDocumentFormat[] = ['pdf', 'docx', 'html', 'markdown', 'text', 'csv'];
const limits = { maxChars: 20_000, maxPages: 20, timeoutMs: 10_000 };

/** Resolves to a document, or rejects with one of the two document errors; nothing else. */
async function outcome(bytes: Uint8Array, format: KnowledgeDocumentFormat): Promise<string> {
  try {
    const doc = await extractDocument({ bytes, format, url: 'https://example.com/a/' }, limits);
    expect(doc.sections.length).toBeGreaterThan(0);
    for (const section of doc.sections) {
      expect(section.text.trim()).toBe(section.text);
      expect(section.text.includes('\u0000')).toBe(false);
    }
    for (const link of doc.links) expect(link).toMatch(/^https?:\/\/[^#]*$/);
    return 'ok';
  } catch (error) {
    if (!isAppError(error) || !['document_unreadable', 'document_too_large'].includes(error.code)) throw error;
    return error.code;
  }
}

describe('extractDocument on hostile input (property)', () => {
  it('arbitrary bytes in every format: a document or a document error, never another error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 4096 }), fc.constantFrom(...FORMATS), async (bytes, format) => {
        await outcome(bytes, format);
      }),
      { numRuns: 120 },
    );
  }, 120_000);

  it('damaged real documents: flipped and truncated bytes of a PDF and a DOCX', async () => {
    const pdf = await makePdf([{ heading: 'Title', lines: ['Some text', 'More text'] }, { lines: ['Page two'] }]);
    const docx = await makeDocx([{ style: 'Heading1', text: 'Title' }, { text: 'Body text.' }]);
    const damaged = (source: Uint8Array) =>
      fc
        .record({
          cut: fc.integer({ min: 0, max: source.length }),
          flips: fc.array(fc.record({ at: fc.nat(source.length - 1), value: fc.integer({ min: 0, max: 255 }) }), {
            maxLength: 20,
          }),
        })
        .map(({ cut, flips }) => {
          const bytes = source.slice(0, Math.max(cut, 8));
          for (const { at, value } of flips) if (at < bytes.length) bytes[at] = value;
          return bytes;
        });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          damaged(pdf).map((bytes) => ({ bytes, format: 'pdf' as const })),
          damaged(docx).map((bytes) => ({ bytes, format: 'docx' as const })),
        ),
        async ({ bytes, format }) => {
          await outcome(bytes, format);
        },
      ),
      { numRuns: 80 },
    );
  }, 120_000);
});
