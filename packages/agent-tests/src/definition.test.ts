import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkTestDefinition } from './definition.ts';

const valid = {
  name: 'Refund',
  turns: [{ user: 'Refund order 1042', expect: [{ type: 'tool_called', tool: 'refund_order' }] }],
  fixtures: [{ tool: 'refund_order', output: { ok: true } }],
};

describe('test definitions', () => {
  it('accept a case and fill the defaults', () => {
    const checked = checkTestDefinition({ name: 'x', turns: [{ user: 'hi' }] });
    expect(checked).toEqual({ ok: true, definition: { name: 'x', turns: [{ user: 'hi', expect: [] }], fixtures: [] } });
    expect(checkTestDefinition(valid).ok).toBe(true);
  });

  it('name every problem in one pass, under the prefix: shape, unsafe schemas, non-RE2 patterns', () => {
    const checked = checkTestDefinition(
      {
        ...valid,
        turns: [
          {
            user: 'hi',
            expect: [
              { type: 'reply_matches', pattern: '(a)\\1' },
              { type: 'tool_called', tool: 'x', arguments: { $ref: 'https://example.com/schema' } },
            ],
          },
        ],
        fixtures: [{ tool: 'x', when: { pattern: '(?=lookahead)', type: 'string' } }],
      },
      '/tests/3',
    );
    expect(checked.ok).toBe(false);
    const paths = checked.ok ? [] : checked.issues.map((i) => i.path);
    expect(paths).toContain('/tests/3/turns/0/expect/0/pattern');
    expect(paths.some((p) => p.startsWith('/tests/3/turns/0/expect/1/arguments'))).toBe(true);
    expect(paths.some((p) => p.startsWith('/tests/3/fixtures/0/when'))).toBe(true);
    const shape = checkTestDefinition({ name: '', turns: [], extra: 1 });
    expect(shape.ok ? [] : shape.issues.map((i) => i.path)).toEqual(expect.arrayContaining(['/name', '/turns', '']));
  });

  it('never throw on hostile input (generated)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const checked = checkTestDefinition(value);
        if (!checked.ok) expect(checked.issues.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (pattern) => {
        const checked = checkTestDefinition({
          name: 'p',
          turns: [{ user: 'u', expect: [{ type: 'reply_matches', pattern: pattern || 'x' }] }],
        });
        expect(typeof checked.ok).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });
});
