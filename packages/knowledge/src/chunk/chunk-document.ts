import type { ChunkOptions, DocumentChunk, ExtractedDocument } from '../types.ts';

// PLACEHOLDER (replaced by the chunking work): paragraphs packed up to a character budget.

/**
 * Splits a document into chunks under their headings, each at most `maxTokens` tokens.
 *
 * @example
 * const chunks = chunkDocument(doc, { maxTokens: 400, overlapTokens: 60 });
 */
export function chunkDocument(doc: ExtractedDocument, options: ChunkOptions): DocumentChunk[] {
  const chunks: DocumentChunk[] = [];
  const budget = options.maxTokens * 4;
  for (const section of doc.sections) {
    let current = '';
    const push = () => {
      if (!current.trim()) return;
      chunks.push({
        index: chunks.length,
        text: current.trim(),
        headingPath: section.headingPath,
        page: section.page,
        tokens: Math.ceil(current.length / 4),
      });
      current = '';
    };
    for (const paragraph of section.text.split(/\n\s*\n/)) {
      if (current && current.length + paragraph.length > budget) push();
      current += `${paragraph}\n\n`;
    }
    push();
  }
  return chunks;
}
