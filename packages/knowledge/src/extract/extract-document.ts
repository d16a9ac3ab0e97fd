import { errors } from '@agentry/errors';
import type { ExtractedDocument, ExtractInput, ExtractLimits } from '../types.ts';

// PLACEHOLDER (replaced by the extraction work): plain text and Markdown headings only.

/**
 * A document's text and structure (sections under their headings, PDF pages).
 *
 * @example
 * const doc = await extractDocument({ bytes, format: 'markdown', filename: 'faq.md' }, { maxChars: 5e6, maxPages: 500 });
 */
export async function extractDocument(input: ExtractInput, limits: ExtractLimits): Promise<ExtractedDocument> {
  if (input.format !== 'text' && input.format !== 'markdown') {
    throw errors.badRequest('unsupported_document_type', `Reading ${input.format} documents is not built yet`);
  }
  const text = new TextDecoder('utf-8', { fatal: false }).decode(input.bytes);
  if (text.length > limits.maxChars) {
    throw errors.of({
      code: 'document_too_large',
      message: `The document has more than ${limits.maxChars} characters of text`,
      category: 'user',
      details: { max_chars: limits.maxChars },
    });
  }
  const sections: ExtractedDocument['sections'] = [];
  let headingPath: string[] = [];
  let lines: string[] = [];
  let title: string | null = null;
  const flush = () => {
    const body = lines.join('\n').trim();
    if (body) sections.push({ headingPath, text: body, page: null });
    lines = [];
  };
  for (const line of text.split(/\r?\n/)) {
    const heading = input.format === 'markdown' ? line.match(/^(#{1,6})\s+(.+?)\s*#*\s*$/) : null;
    if (heading) {
      flush();
      const depth = heading[1]!.length;
      headingPath = [...headingPath.slice(0, depth - 1), heading[2]!];
      title ??= depth === 1 ? heading[2]! : null;
    } else lines.push(line);
  }
  flush();
  return { title, sections, pages: null, links: [] };
}
