import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../../..');

/** `from '…'` specifiers of a file, with whether the statement is type-only. */
function imports(file: string): Array<{ from: string; typeOnly: boolean; statement: string }> {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)';/gms)].map((m) => ({
    from: m[3]!,
    typeOnly: Boolean(m[2]),
    statement: m[0],
  }));
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name));
}

describe('the contract stays browser-safe', () => {
  it('the main entry imports nothing but its own plain files (no zod, no schemas)', () => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const { from, typeOnly } of imports(file)) {
        expect(from.startsWith('./'), `${relative(here, file)} imports ${from}`).toBe(true);
        if (typeOnly) continue;
        visit(resolve(dirname(file), from));
      }
    };
    visit(join(here, 'index.ts'));
    expect([...seen].some((f) => f.includes('/schemas/'))).toBe(false);
  });

  it('the dashboard and the widget take only types from the schemas entry (zod stays out of their bundles)', () => {
    const values = ['apps/dashboard/src', 'apps/widget/src']
      .flatMap((dir) => sources(join(repo, dir)))
      .flatMap((file) =>
        imports(file)
          .filter((i) => i.from === '@agentry/contract/schemas' && !i.typeOnly)
          .map((i) => `${relative(repo, file)}: ${i.statement}`),
      );
    expect(values).toEqual([]);
  });
});
