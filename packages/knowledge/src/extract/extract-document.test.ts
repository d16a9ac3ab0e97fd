import { readdirSync, readFileSync } from 'node:fs';
import { isAppError } from '@agentry/errors';
import { waitUntil } from '@agentry/testkit';
import { describe, expect, it } from 'vitest';
import { makeDocx, makeHtmlPage, makePdf } from '../test-support/make-documents.ts';
import type { ExtractInput, ExtractLimits } from '../types.ts';
import { extractDocument } from './extract-document.ts';

const limits = { maxChars: 1_000_000, maxPages: 100 };
const utf8 = (text: string) => new TextEncoder().encode(text);

async function failure(input: ExtractInput, custom: ExtractLimits = limits) {
  try {
    await extractDocument(input, custom);
  } catch (error) {
    if (isAppError(error)) return error;
    throw error;
  }
  throw new Error('expected the extraction to fail');
}

describe('extractDocument: PDF', () => {
  it('reads text per page, headings from font sizes, the metadata title and the page count', async () => {
    const bytes = await makePdf(
      [
        { heading: 'Refund policy', lines: ['Refunds are processed within 14 days.', 'Ask support for help.'] },
        { lines: ['Digital goods cannot be refunded.'] },
        { heading: 'Shipping', lines: ['Orders ship in two days.'] },
      ],
      { title: 'Customer guide' },
    );
    const doc = await extractDocument({ bytes, format: 'pdf', filename: 'guide.pdf' }, limits);
    expect(doc.title).toBe('Customer guide');
    expect(doc.pages).toBe(3);
    expect(doc.sections).toEqual([
      { headingPath: ['Refund policy'], text: 'Refunds are processed within 14 days.\nAsk support for help.', page: 1 },
      { headingPath: ['Refund policy'], text: 'Digital goods cannot be refunded.', page: 2 },
      { headingPath: ['Shipping'], text: 'Orders ship in two days.', page: 3 },
    ]);
  });

  it('falls back to the first heading, then the file name, for the title', async () => {
    const bytes = await makePdf([{ heading: 'Handbook', lines: ['Welcome aboard.'] }]);
    expect((await extractDocument({ bytes, format: 'pdf', filename: 'x.pdf' }, limits)).title).toBe('Handbook');
    const plain = await makePdf([{ lines: ['Just text.'] }]);
    expect((await extractDocument({ bytes: plain, format: 'pdf', filename: 'Staff notes.pdf' }, limits)).title).toBe(
      'Staff notes',
    );
  });

  it('refuses a PDF with more pages than allowed, and one with no text', async () => {
    const bytes = await makePdf(Array.from({ length: 5 }, () => ({ lines: ['Page text.'] })));
    const large = await failure({ bytes, format: 'pdf' }, { ...limits, maxPages: 4 });
    expect(large.code).toBe('document_too_large');
    expect(large.details).toEqual({ pages: 5, max_pages: 4 });
    const empty = await failure({ bytes: await makePdf([{ lines: [] }]), format: 'pdf' });
    expect(empty.code).toBe('document_unreadable');
    expect(empty.message).toMatch(/no text.*OCR/);
  });

  it('refuses corrupt PDFs as unreadable', async () => {
    const good = await makePdf([{ heading: 'Title', lines: ['Some text here.'] }]);
    for (const bytes of [good.slice(0, 200), utf8(`%PDF-1.7\n${'garbage '.repeat(100)}`), utf8('%PDF')]) {
      const error = await failure({ bytes, format: 'pdf' });
      expect(error.code).toBe('document_unreadable');
      expect(error.message).toMatch(/PDF/);
    }
  });

  it('stops past maxChars', async () => {
    const bytes = await makePdf([
      { lines: Array.from({ length: 40 }, () => 'A line of forty characters or so, okay.') },
    ]);
    const error = await failure({ bytes, format: 'pdf' }, { ...limits, maxChars: 500 });
    expect(error.code).toBe('document_too_large');
    expect(error.details).toEqual({ max_chars: 500 });
  });
});

describe('extractDocument: DOCX', () => {
  it('keeps Word headings as the heading path', async () => {
    const bytes = await makeDocx([
      { style: 'Heading1', text: 'Employee handbook' },
      { text: 'Welcome to the company.' },
      { style: 'Heading2', text: 'Holidays' },
      { text: 'You get 25 days.' },
      { text: 'Ask your manager.' },
      { style: 'Heading2', text: 'Expenses' },
      { text: 'Submit receipts monthly.' },
    ]);
    const doc = await extractDocument({ bytes, format: 'docx', filename: 'handbook.docx' }, limits);
    expect(doc.title).toBe('Employee handbook');
    expect(doc.pages).toBeNull();
    expect(doc.sections).toEqual([
      { headingPath: ['Employee handbook'], text: 'Welcome to the company.', page: null },
      { headingPath: ['Employee handbook', 'Holidays'], text: 'You get 25 days.\n\nAsk your manager.', page: null },
      { headingPath: ['Employee handbook', 'Expenses'], text: 'Submit receipts monthly.', page: null },
    ]);
  });

  it('refuses a zip that is not a DOCX, and random bytes', async () => {
    expect((await failure({ bytes: utf8('PK\u0003\u0004 not really a zip'), format: 'docx' })).code).toBe(
      'document_unreadable',
    );
  });
});

describe('extractDocument: HTML', () => {
  it('reads the main content under its headings, drops navigation and footer, and resolves links', async () => {
    const html = makeHtmlPage({
      title: 'Help centre',
      sections: 3,
      links: ['/docs#top', 'https://other.example/x', 'mailto:a@b.c', '/docs'],
    });
    const doc = await extractDocument(
      { bytes: utf8(html), format: 'html', url: 'https://help.example.com/start/' },
      limits,
    );
    expect(doc.title).toBe('Help centre');
    expect(doc.sections.map((s) => s.headingPath)).toEqual([
      ['Help centre', 'Topic 1'],
      ['Help centre', 'Topic 2'],
      ['Help centre', 'Topic 3'],
    ]);
    const all = doc.sections.map((s) => s.text).join('\n');
    expect(all).toContain('Topic 2 explains how refunds');
    expect(all).not.toContain('Copyright');
    expect(all).not.toContain('Link /docs');
    // Fragments stripped, duplicates and non-http(s) links dropped, document order kept.
    expect(doc.links).toEqual(['https://help.example.com/docs', 'https://other.example/x']);
  });

  it('reads Chinese in legacy encodings from <meta charset>, and UTF-8 with a BOM', async () => {
    const text = '退款政策：所有订单在收货后十四天内可以申请退款。'.repeat(10);
    const page = `<html><head><meta charset="gbk"><title>退款</title></head><body><h1>退款政策</h1><p>${text}</p></body></html>`;
    // GBK bytes for the page (TextEncoder only writes UTF-8, so encode through a round trip table).
    const gbk = encodeGbk(page);
    const doc = await extractDocument({ bytes: gbk, format: 'html' }, limits);
    expect(doc.sections.map((s) => s.text).join('')).toContain('所有订单在收货后十四天内可以申请退款。');
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('# 标题\n\n正文。')]);
    const md = await extractDocument({ bytes: bom, format: 'markdown' }, limits);
    expect(md).toEqual({
      title: '标题',
      sections: [{ headingPath: ['标题'], text: '正文。', page: null }],
      pages: null,
      links: [],
    });
  });
});

describe('extractDocument: Markdown, CSV, text', () => {
  it('parses Markdown structure: nested headings, lists, code, tables, inline markup', async () => {
    const md = [
      '# Guide',
      'Intro with **bold** and a [link](https://x.example).',
      '## Install',
      '- step one',
      '- step two',
      '```sh\nnpm install\n```',
      '### Windows',
      '| Key | Value |\n| --- | --- |\n| os | win |',
      '## Use',
      '> quoted',
    ].join('\n\n');
    const doc = await extractDocument({ bytes: utf8(md), format: 'markdown' }, limits);
    expect(doc.title).toBe('Guide');
    expect(doc.sections).toEqual([
      { headingPath: ['Guide'], text: 'Intro with bold and a link.', page: null },
      { headingPath: ['Guide', 'Install'], text: '- step one\n- step two\n\nnpm install', page: null },
      { headingPath: ['Guide', 'Install', 'Windows'], text: 'Key: os; Value: win', page: null },
      { headingPath: ['Guide', 'Use'], text: 'quoted', page: null },
    ]);
  });

  it('turns CSV rows into "header: value" lines, 50 rows a section', async () => {
    const rows = Array.from({ length: 120 }, (_, i) => `${i},"Item, ${i}",`);
    const doc = await extractDocument(
      { bytes: utf8(`id,name,note\n${rows.join('\n')}`), format: 'csv', filename: 'items.csv' },
      limits,
    );
    expect(doc.title).toBe('items');
    expect(doc.sections).toHaveLength(3);
    expect(doc.sections[0]!.text.split('\n\n')[1]).toBe('id: 1; name: Item, 1');
    expect(doc.sections[2]!.headingPath).toEqual([]);
  });

  it('reads plain text paragraphs, strips control characters, refuses empty text and too much text', async () => {
    const doc = await extractDocument(
      { bytes: utf8('First\u0000 para.\r\n\r\nSecond   para.'), format: 'text' },
      limits,
    );
    expect(doc.sections).toEqual([{ headingPath: [], text: 'First para.\n\nSecond para.', page: null }]);
    expect((await failure({ bytes: utf8('  \n '), format: 'text' })).code).toBe('document_unreadable');
    expect((await failure({ bytes: utf8('x'.repeat(101)), format: 'text' }, { ...limits, maxChars: 100 })).code).toBe(
      'document_too_large',
    );
  });
});

describe('extractDocument: isolation', () => {
  it('ends a parse that takes too long, and honours an aborted signal', async () => {
    const bytes = await makePdf(Array.from({ length: 30 }, (_, i) => ({ heading: `Part ${i}`, lines: ['Text.'] })));
    const slow = await failure({ bytes, format: 'pdf' }, { ...limits, timeoutMs: 1 });
    expect(slow.code).toBe('document_unreadable');
    expect(slow.message).toMatch(/too long/);
    const controller = new AbortController();
    const pending = extractDocument({ bytes, format: 'pdf' }, { ...limits, signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'aborted' });
    // The pool still works afterwards.
    expect((await extractDocument({ bytes, format: 'pdf' }, limits)).pages).toBe(30);
  });

  it('reads in a child process: a reader killed mid-parse, even by a native abort, fails only its document', async () => {
    const bytes = await makePdf(Array.from({ length: 200 }, (_, i) => ({ heading: `Part ${i}`, lines: ['Text.'] })));
    for (const signal of ['SIGABRT', 'SIGSEGV'] as const) {
      const pending = failure({ bytes, format: 'pdf' }, { ...limits, maxPages: 500 });
      const pid = await waitUntil(() => readerPids()[0], { timeoutMs: 10_000, intervalMs: 2 });
      process.kill(pid, signal);
      const error = await pending;
      expect(error.code).toBe('document_unreadable');
      expect(error.message).toContain(signal);
    }
    // Timeouts that kill readers at every stage (starting, loading pdf.js, inflating streams) leave this process be.
    for (const timeoutMs of [1, 20, 60, 120, 250]) {
      const slow = await failure({ bytes, format: 'pdf' }, { ...limits, maxPages: 500, timeoutMs });
      expect(slow.message).toMatch(/too long/);
    }
    expect((await extractDocument({ bytes, format: 'pdf' }, { ...limits, maxPages: 500 })).pages).toBe(200);
  });
});

/** Child processes of this process running the extraction reader. */
function readerPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (ppid === process.pid && cmdline.includes('extract-worker')) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

/** GBK-encodes text through the platform's decoder (build a reverse table for the characters used). */
function encodeGbk(text: string): Uint8Array {
  const table = new Map<string, number[]>();
  const decoder = new TextDecoder('gbk');
  for (let lead = 0x81; lead <= 0xfe; lead++) {
    for (let trail = 0x40; trail <= 0xfe; trail++) {
      const char = decoder.decode(new Uint8Array([lead, trail]));
      if (char.length === 1 && !table.has(char)) table.set(char, [lead, trail]);
    }
  }
  const out: number[] = [];
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code < 0x80) out.push(code);
    else out.push(...(table.get(char) ?? [0x3f]));
  }
  return new Uint8Array(out);
}
