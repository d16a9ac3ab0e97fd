import type { ExtractedSection } from '../types.ts';
import { tooLarge } from './extract-errors.ts';

// C0 controls but tab and newlines, and DEL: Postgres text cannot hold NUL, and none of them is text.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

/** Text as stored: well-formed UTF-16, `\n` line ends, no control characters, no runs of blank space. */
export function cleanText(text: string): string {
  return text
    .toWellFormed()
    .replace(/\r\n?/g, '\n')
    .replace(CONTROL, '')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Collects a document's text into sections under the current heading path (and page), counting
 * characters against the limit as it goes so a huge document stops early.
 */
export class SectionBuilder {
  readonly sections: ExtractedSection[] = [];
  private path: string[] = [];
  private levels: number[] = [];
  private page: number | null = null;
  private paragraphs: string[] = [];
  private chars = 0;

  private readonly maxChars: number;

  constructor(maxChars: number) {
    this.maxChars = maxChars;
  }

  /** Starts a section under a heading of `level` (1 = outermost), closing deeper ones. */
  heading(level: number, text: string): void {
    const title = cleanText(text).replace(/\s+/g, ' ');
    if (!title) return;
    this.flush();
    while (this.levels.length && (this.levels.at(-1) as number) >= level) {
      this.levels.pop();
      this.path.pop();
    }
    this.levels.push(level);
    this.path.push(title);
    this.count(title.length);
  }

  /** Starts a new PDF page (the heading path carries over). */
  startPage(page: number): void {
    this.flush();
    this.page = page;
  }

  paragraph(text: string): void {
    const clean = cleanText(text);
    if (!clean) return;
    this.count(clean.length + 2);
    this.paragraphs.push(clean);
  }

  /** Ends the current section (the next text starts another under the same path). */
  endSection(): void {
    this.flush();
  }

  /** The sections so far, the last one closed. */
  finish(): ExtractedSection[] {
    this.flush();
    return this.sections;
  }

  private flush(): void {
    if (this.paragraphs.length) {
      this.sections.push({ headingPath: [...this.path], text: this.paragraphs.join('\n\n'), page: this.page });
    }
    this.paragraphs = [];
  }

  private count(chars: number): void {
    this.chars += chars;
    if (this.chars > this.maxChars) {
      throw tooLarge(`The document has more than ${this.maxChars} characters of text`, { max_chars: this.maxChars });
    }
  }
}
