import { parse } from 'csv-parse/sync';
import { unreadable } from './extract-errors.ts';
import { SectionBuilder } from './section-builder.ts';

/** CSV rows per section: enough context per chunk, small enough to cite. */
const ROWS_PER_SECTION = 50;

/** Plain text: one section, paragraphs at blank lines. */
export function extractPlainText(text: string, maxChars: number): SectionBuilder {
  const builder = new SectionBuilder(maxChars);
  for (const paragraph of text.split(/\r?\n[^\S\n]*\r?\n/)) builder.paragraph(paragraph);
  return builder;
}

/**
 * CSV: the first row names the columns, each other row becomes a line `header: value; …`, and
 * every {@link ROWS_PER_SECTION} rows start a section (no headings).
 */
export function extractCsv(text: string, maxChars: number): SectionBuilder {
  let rows: string[][];
  try {
    rows = parse(text, {
      bom: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      max_record_size: maxChars,
    }) as string[][];
  } catch (error) {
    throw unreadable(`The CSV could not be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  const builder = new SectionBuilder(maxChars);
  const [header = [], ...body] = rows;
  const names = header.map((name) => name.trim());
  let rowsInSection = 0;
  for (const row of body.length ? body : [header]) {
    const line = row
      .map((value, at) =>
        value.trim() ? (body.length && names[at] ? `${names[at]}: ${value.trim()}` : value.trim()) : '',
      )
      .filter(Boolean)
      .join('; ');
    if (!line) continue;
    builder.paragraph(line);
    if (++rowsInSection >= ROWS_PER_SECTION) {
      builder.endSection();
      rowsInSection = 0;
    }
  }
  return builder;
}
