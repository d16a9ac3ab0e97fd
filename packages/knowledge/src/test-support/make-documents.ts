import JSZip from 'jszip';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/**
 * Test documents built at run time (no binary fixtures in the repository): PDFs with pdf-lib,
 * DOCX as a minimal WordprocessingML zip.
 */

/** A PDF whose pages each start with a large heading line and then body lines. */
export async function makePdf(
  pages: Array<{ heading?: string; lines: string[] }>,
  options: { title?: string } = {},
): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  if (options.title) pdf.setTitle(options.title);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const content of pages) {
    const page = pdf.addPage([595, 842]);
    let y = 780;
    if (content.heading) {
      page.drawText(content.heading, { x: 50, y, size: 22, font });
      y -= 40;
    }
    for (const line of content.lines) {
      page.drawText(line, { x: 50, y, size: 11, font });
      y -= 16;
    }
  }
  return pdf.save();
}

/** A DOCX of paragraphs, each plain or in a Word heading style (`Heading1`, `Heading2`, …). */
export async function makeDocx(paragraphs: Array<{ style?: string; text: string }>): Promise<Uint8Array> {
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
  );
  zip.file(
    '_rels/.rels',
    `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
  );
  const body = paragraphs
    .map(
      ({ style, text }) =>
        `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r></w:p>`,
    )
    .join('');
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  );
  return zip.generateAsync({ type: 'uint8array' });
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A help-centre page: navigation and footer around an article of `sections` `h2` sections. */
export function makeHtmlPage(options: { title: string; sections: number; links?: string[] }): string {
  const nav = (options.links ?? ['/', '/about']).map((href) => `<a href="${href}">Link ${href}</a>`).join(' ');
  const sections = Array.from(
    { length: options.sections },
    (_, i) =>
      `<h2>Topic ${i + 1}</h2><p>${`Topic ${i + 1} explains how refunds, shipping and accounts work for customers. `.repeat(6)}</p>`,
  ).join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>${options.title}</title></head><body><nav class="menu">${nav}</nav><main><article><h1>${options.title}</h1>${sections}</article></main><footer>Copyright 2026 Example Corp. All rights reserved. Cookie settings.</footer></body></html>`;
}
