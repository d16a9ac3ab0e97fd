import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Translate } from './i18n.ts';
import { safeSourceUrl, sourceDetail } from './sources.ts';

const t: Translate = (key, vars) => (key === 'sourcePage' ? `page ${vars?.page}` : key);

describe('source links', () => {
  it('links http(s) addresses only', () => {
    expect(safeSourceUrl('https://help.example.com/a?b=1#c')).toBe('https://help.example.com/a?b=1#c');
    expect(safeSourceUrl('http://intranet.example/x')).toBe('http://intranet.example/x');
    for (const bad of [
      'javascript:alert(1)',
      ' JaVaScRiPt:alert(1)',
      'java\tscript:alert(1)',
      'data:text/html,<script>1</script>',
      'vbscript:x',
      '/relative',
      '//evil.example/x',
      'file:///etc/passwd',
      '',
      null,
      42,
    ]) {
      expect(safeSourceUrl(bad)).toBeUndefined();
    }
  });

  it('never returns anything but an http(s) URL, whatever it is given', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl(), fc.anything()), (value) => {
        const href = safeSourceUrl(value);
        if (href !== undefined) expect(href).toMatch(/^https?:\/\//);
      }),
      { numRuns: 200 },
    );
  });

  it('describes a source by its heading path and page', () => {
    expect(sourceDetail({ heading_path: ['Billing', 'Refunds'], page: 3 }, t)).toBe('Billing › Refunds · page 3');
    expect(sourceDetail({ heading_path: [], page: null }, t)).toBe('');
  });
});
