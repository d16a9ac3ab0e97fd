import { isAppError } from '@agentry/errors';
import type { ExtractedDocument, ExtractInput } from '../types.ts';
import { decodeText } from './decode-text.ts';
import { unreadable } from './extract-errors.ts';

export interface ExtractBounds {
  maxChars: number;
  maxPages: number;
}

/**
 * Extraction itself, on this thread (the worker pool runs it for the formats whose parsers are
 * heavy). Fails only with `AppError`s: `document_unreadable`, `document_too_large`.
 */
export async function extractInProcess(input: ExtractInput, bounds: ExtractBounds): Promise<ExtractedDocument> {
  try {
    return await extractFormat(input, bounds);
  } catch (error) {
    if (isAppError(error)) throw error;
    const reason = error instanceof Error ? error.message.slice(0, 200) : String(error);
    throw unreadable(`The ${input.format} document could not be read: ${reason}`);
  }
}

// Parsers load on first use: a worker reading only HTML never loads PDF.js.
async function extractFormat(input: ExtractInput, bounds: ExtractBounds): Promise<ExtractedDocument> {
  const { maxChars } = bounds;
  switch (input.format) {
    case 'pdf': {
      const { extractPdf } = await import('./extract-pdf.ts');
      const { title, builder, pages } = await extractPdf(input.bytes, bounds);
      const sections = builder.finish();
      if (!sections.length) throw unreadable('The PDF has no text (a scanned PDF needs OCR)');
      return { title: title ?? firstHeading(sections) ?? fromFilename(input), sections, pages, links: [] };
    }
    case 'docx': {
      const [{ docxToHtml }, { extractHtml }] = await Promise.all([
        import('./extract-docx.ts'),
        import('./extract-html.ts'),
      ]);
      const html = await docxToHtml(input.bytes);
      const page = `<!doctype html><html><head></head><body>${html}</body></html>`;
      const { title, builder } = extractHtml(page, { maxChars, mainContent: false });
      return finish(input, title, builder.finish(), []);
    }
    case 'html': {
      const { extractHtml } = await import('./extract-html.ts');
      const html = decodeText(input.bytes, 'html');
      const { title, builder, links } = extractHtml(html, { maxChars, url: input.url, mainContent: true });
      return finish(input, title, builder.finish(), links);
    }
    case 'markdown': {
      const { extractMarkdown } = await import('./extract-markdown.ts');
      const { title, builder } = extractMarkdown(decodeText(input.bytes, 'text'), maxChars);
      return finish(input, title, builder.finish(), []);
    }
    case 'csv': {
      const { extractCsv } = await import('./extract-plain.ts');
      return finish(input, null, extractCsv(decodeText(input.bytes, 'text'), maxChars).finish(), []);
    }
    case 'text': {
      const { extractPlainText } = await import('./extract-plain.ts');
      return finish(input, null, extractPlainText(decodeText(input.bytes, 'text'), maxChars).finish(), []);
    }
    default:
      throw unreadable(`Documents of type ${String(input.format)} cannot be read`);
  }
}

function finish(
  input: ExtractInput,
  title: string | null,
  sections: ExtractedDocument['sections'],
  links: string[],
): ExtractedDocument {
  if (!sections.length && !input.allowEmpty) throw unreadable('The document has no text');
  return { title: title?.trim() || fromFilename(input), sections, pages: null, links };
}

function firstHeading(sections: ExtractedDocument['sections']): string | null {
  return sections.find((section) => section.headingPath.length)?.headingPath[0] ?? null;
}

/** `Refund policy.pdf` → `Refund policy`. */
function fromFilename(input: ExtractInput): string | null {
  const name = input.filename
    ?.split(/[\\/]/)
    .pop()
    ?.replace(/\.[a-z0-9]{1,8}$/i, '')
    .trim();
  return name || null;
}
