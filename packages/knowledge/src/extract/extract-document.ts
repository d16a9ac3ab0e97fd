import type { ExtractedDocument, ExtractInput, ExtractLimits } from '../types.ts';
import { aborted } from './extract-errors.ts';
import { extractInProcess } from './extract-in-process.ts';
import { EXTRACT_TIMEOUT_MS, extractInWorker } from './worker-pool.ts';

/**
 * A document's text and structure: sections under their headings (`h1`–`h6`, Markdown `#`, Word's
 * heading styles, PDF lines set larger than the body), PDF pages, an HTML page's main content and
 * links. PDF, DOCX, HTML, Markdown and CSV are parsed in a child process (bounded in time and
 * memory); plain text here. Fails only with `AppError`s: `document_unreadable` (corrupt, empty,
 * too slow), `document_too_large` (past `maxChars` / `maxPages`), `aborted`, or `server_busy`
 * when too many documents wait to be read.
 *
 * @example
 * const doc = await extractDocument({ bytes, format: 'pdf', filename: 'guide.pdf' }, { maxChars: 5e6, maxPages: 500 });
 * doc.sections[0]; // { headingPath: ['Guide'], text: '…', page: 1 }
 */
export async function extractDocument(input: ExtractInput, limits: ExtractLimits): Promise<ExtractedDocument> {
  if (limits.signal?.aborted) throw aborted();
  const bounds = { maxChars: limits.maxChars, maxPages: limits.maxPages };
  if (input.format === 'text') return extractInProcess(input, bounds);
  return extractInWorker(input, bounds, { timeoutMs: limits.timeoutMs ?? EXTRACT_TIMEOUT_MS, signal: limits.signal });
}
