import { describe, expect, it } from 'vitest';
import { parseBody, uploadedShare } from './upload.ts';

describe('upload helpers', () => {
  it('gives the sent share within 0…1, 0 while the total is unknown', () => {
    expect(uploadedShare({ loaded: 512, total: 1024 })).toBe(0.5);
    expect(uploadedShare({ loaded: 2048, total: 1024 })).toBe(1);
    expect(uploadedShare({ loaded: 10, total: 0 })).toBe(0);
    expect(uploadedShare({ loaded: Number.NaN, total: 10 })).toBe(0);
  });

  it('parses JSON answers and keeps others as text', () => {
    expect(parseBody('{"code":"document_too_large"}')).toEqual({ code: 'document_too_large' });
    expect(parseBody('<html>Bad gateway</html>')).toBe('<html>Bad gateway</html>');
    expect(parseBody('')).toBeUndefined();
  });
});
