import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The `.ts` files under `dir`, skipping installed and built folders. */
function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return ['node_modules', 'dist'].includes(entry.name) ? [] : walk(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Production sources of apps and packages: no tests, no test support, not the helper itself. */
function sources(): string[] {
  return ['apps', 'packages']
    .flatMap((top) => readdirSync(join(root, top)).map((name) => join(root, top, name, 'src')))
    .filter((dir) => existsSync(dir))
    .flatMap(walk)
    .filter((file) => !/\.(test|d)\.ts$/.test(file) && !/\/(test-support|e2e)\//.test(file))
    .filter((file) => !file.endsWith('/tenant-scope.ts'));
}

const CALL = /withSystemScope\(/g;
const CALL_WITH_REASON = /withSystemScope\(\s*[\w.]+\s*,\s*(['"`])((?:(?!\1).)+)\1/g;

/**
 * Work that sees every tenant is the exception: each place that opens the system scope says why
 * (a literal reason), and docs/architecture/tenant-isolation.md lists that reason, so the list there stays complete.
 */
describe('system-scope call sites', () => {
  it('are few, give a literal reason, and are all listed in docs/architecture/tenant-isolation.md', () => {
    const architecture = readFileSync(join(root, 'docs/architecture/tenant-isolation.md'), 'utf8');
    const sites: Array<{ file: string; reason: string }> = [];
    for (const path of sources()) {
      const file = relative(root, path);
      const text = readFileSync(path, 'utf8');
      const reasons = [...text.matchAll(CALL_WITH_REASON)].map((m) => m[2]!);
      expect({ file, calls: text.match(CALL)?.length ?? 0 }).toEqual({ file, calls: reasons.length });
      for (const reason of reasons) sites.push({ file, reason });
    }
    expect(sites.length).toBeGreaterThan(0);
    expect(sites.filter((s) => !architecture.includes(`\`${s.reason}\``))).toEqual([]);
  });
});
