import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkFile, formatBytes, MAX_UPLOAD_BYTES, UPLOAD_ACCEPT } from './knowledge-files.ts';

describe('checkFile', () => {
  it('takes the supported formats by name, whatever media type the browser gives', () => {
    const cases: Array<[string, string, string]> = [
      ['guide.pdf', 'application/pdf', 'pdf'],
      ['Policy.DOCX', '', 'docx'],
      ['page.htm', 'text/html', 'html'],
      ['notes.md', '', 'markdown'],
      ['notes.markdown', 'application/octet-stream', 'markdown'],
      ['readme.txt', 'text/plain', 'text'],
      ['prices.csv', 'application/vnd.ms-excel', 'csv'],
    ];
    for (const [name, type, format] of cases)
      expect(checkFile({ name, size: 10, type }), name).toEqual({ ok: true, format });
  });

  it('falls back to the media type for names without a known ending', () => {
    expect(checkFile({ name: 'export', size: 10, type: 'text/csv; charset=utf-8' })).toEqual({
      ok: true,
      format: 'csv',
    });
  });

  it('refuses other types, empty files and files over the limit', () => {
    expect(checkFile({ name: 'photo.png', size: 10, type: 'image/png' })).toEqual({ ok: false, problem: 'type' });
    expect(checkFile({ name: 'sheet.xlsx', size: 10, type: '' })).toEqual({ ok: false, problem: 'type' });
    expect(checkFile({ name: 'a.md', size: 0, type: '' })).toEqual({ ok: false, problem: 'empty' });
    expect(checkFile({ name: 'a.pdf', size: MAX_UPLOAD_BYTES + 1, type: '' })).toEqual({
      ok: false,
      problem: 'size',
      maxBytes: MAX_UPLOAD_BYTES,
    });
    expect(checkFile({ name: 'a.pdf', size: MAX_UPLOAD_BYTES, type: '' }).ok).toBe(true);
    expect(checkFile({ name: 'a.pdf', size: 101, type: '' }, 100)).toEqual({
      ok: false,
      problem: 'size',
      maxBytes: 100,
    });
  });

  it('never throws, and accepts only non-empty files within the limit', () => {
    fc.assert(
      fc.property(fc.string(), fc.nat(), fc.string(), (name, size, type) => {
        const check = checkFile({ name, size, type });
        if (check.ok) expect(size).toBeGreaterThan(0);
        if (check.ok) expect(size).toBeLessThanOrEqual(MAX_UPLOAD_BYTES);
      }),
    );
  });

  it('offers the formats in the picker', () => {
    for (const ending of ['.pdf', '.docx', '.html', '.md', '.txt', '.csv'])
      expect(UPLOAD_ACCEPT.split(',')).toContain(ending);
  });
});

describe('formatBytes', () => {
  it('says sizes in the unit people expect', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(1024 * 1024)).toBe('1 MB');
    expect(formatBytes(20 * 1024 * 1024)).toBe('20 MB');
    expect(formatBytes(123.4 * 1024 * 1024)).toBe('123 MB');
    expect(formatBytes(5 * 1024 ** 4)).toBe('5120 GB');
  });
});
