import { getDocumentProxy } from 'unpdf';
import { tooLarge, unreadable } from './extract-errors.ts';
import { SectionBuilder } from './section-builder.ts';

interface Line {
  text: string;
  size: number;
}

/** A line this much larger than the body text (and short) reads as a heading. */
const HEADING_RATIO = 1.2;
const HEADING_MAX_CHARS = 120;

/**
 * A PDF's text page by page (sections carry their 1-based page), headings guessed from font sizes
 * (lines clearly larger than the body text, largest = level 1), its metadata title and page count.
 */
export async function extractPdf(
  bytes: Uint8Array,
  limits: { maxChars: number; maxPages: number },
): Promise<{ title: string | null; builder: SectionBuilder; pages: number }> {
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(bytes, { verbosity: 0, stopAtErrors: false });
  } catch (error) {
    throw unreadable(`The PDF could not be read: ${reasonOf(error)}`);
  }
  try {
    if (pdf.numPages > limits.maxPages) {
      throw tooLarge(`The PDF has ${pdf.numPages} pages, more than ${limits.maxPages}`, {
        pages: pdf.numPages,
        max_pages: limits.maxPages,
      });
    }
    const title = await metadataTitle(pdf);
    const pages: Line[][] = [];
    let chars = 0;
    for (let number = 1; number <= pdf.numPages; number++) {
      const lines = await pageLines(pdf, number);
      chars += lines.reduce((sum, line) => sum + line.text.length + 1, 0);
      if (chars > limits.maxChars) {
        throw tooLarge(`The document has more than ${limits.maxChars} characters of text`, {
          max_chars: limits.maxChars,
        });
      }
      pages.push(lines);
    }
    return { title, builder: buildSections(pages, limits.maxChars), pages: pdf.numPages };
  } catch (error) {
    if (error instanceof Error && error.name === 'AppError') throw error;
    throw unreadable(`The PDF could not be read: ${reasonOf(error)}`);
  } finally {
    void pdf.loadingTask.destroy().catch(() => {});
  }
}

async function metadataTitle(pdf: Awaited<ReturnType<typeof getDocumentProxy>>): Promise<string | null> {
  try {
    const { info } = await pdf.getMetadata();
    const title = (info as { Title?: unknown }).Title;
    return typeof title === 'string' && title.trim() ? title.trim() : null;
  } catch {
    return null; // broken metadata does not make the text unreadable
  }
}

async function pageLines(pdf: Awaited<ReturnType<typeof getDocumentProxy>>, number: number): Promise<Line[]> {
  const page = await pdf.getPage(number);
  const content = await page.getTextContent();
  page.cleanup();
  const lines: Line[] = [];
  let text = '';
  let size = 0;
  for (const item of content.items) {
    if (!('str' in item)) continue;
    text += item.str;
    const [, , c = 0, d = 0] = item.transform as number[];
    if (item.str.trim()) size = Math.max(size, Math.hypot(c, d));
    if (item.hasEOL) {
      lines.push({ text, size });
      text = '';
      size = 0;
    }
  }
  if (text) lines.push({ text, size });
  return lines.filter((line) => line.text.trim());
}

function buildSections(pages: Line[][], maxChars: number): SectionBuilder {
  const body = bodySize(pages);
  const headingSizes = [
    ...new Set(
      pages
        .flat()
        .filter((line) => isHeading(line, body))
        .map((line) => Math.round(line.size)),
    ),
  ].sort((a, b) => b - a);
  const builder = new SectionBuilder(maxChars);
  pages.forEach((lines, at) => {
    builder.startPage(at + 1);
    let paragraph: string[] = [];
    const flush = () => {
      builder.paragraph(paragraph.join('\n'));
      paragraph = [];
    };
    for (const line of lines) {
      if (isHeading(line, body)) {
        flush();
        builder.heading(Math.min(6, headingSizes.indexOf(Math.round(line.size)) + 1), line.text);
      } else paragraph.push(line.text);
    }
    flush();
  });
  return builder;
}

/** The font size most of the text is set in. */
function bodySize(pages: Line[][]): number {
  const chars = new Map<number, number>();
  for (const line of pages.flat()) {
    const size = Math.round(line.size);
    chars.set(size, (chars.get(size) ?? 0) + line.text.length);
  }
  let best = 0;
  let most = -1;
  for (const [size, count] of chars) {
    if (count > most) [best, most] = [size, count];
  }
  return best;
}

function isHeading(line: Line, body: number): boolean {
  const text = line.text.trim();
  return body > 0 && line.size >= body * HEADING_RATIO && text.length <= HEADING_MAX_CHARS && /\p{L}/u.test(text);
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, 200) || 'unknown error';
}
