import { describe, expect, it } from 'vitest';
import { makeDocx, makePdf } from '../test-support/make-documents.ts';
import { detectFormat } from './detect-format.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('detectFormat', () => {
  it('trusts signatures over names and media types', async () => {
    const pdf = await makePdf([{ lines: ['x'] }]);
    const docx = await makeDocx([{ text: 'x' }]);
    expect(detectFormat({ filename: 'a.txt', mediaType: 'text/plain', bytes: pdf })).toBe('pdf');
    expect(detectFormat({ filename: 'a.docx', bytes: docx })).toBe('docx');
    expect(detectFormat({ filename: 'a.zip', mediaType: 'application/zip', bytes: docx })).toBeNull();
    expect(detectFormat({ filename: 'fake.pdf', bytes: utf8('hello') })).toBeNull();
  });

  it('reads media types (with parameters) and extensions for text formats', () => {
    expect(detectFormat({ mediaType: 'text/html; charset=utf-8', bytes: utf8('<p>') })).toBe('html');
    expect(detectFormat({ filename: 'README.MD', bytes: utf8('# x') })).toBe('markdown');
    expect(detectFormat({ filename: 'rows.csv', mediaType: null, bytes: utf8('a,b') })).toBe('csv');
    expect(detectFormat({ filename: 'image.png', mediaType: 'image/png', bytes: utf8('x') })).toBeNull();
  });
});
