import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const appDir = fileURLToPath(new URL('../', import.meta.url));

/**
 * Builds the dashboard into dist/ the way `pnpm --filter @agentry/dashboard build` does, but into a
 * scratch directory first and then swapped in: two browser test files run at once, and a plain
 * build empties dist/ while the other file's browser may be loading the API-served dashboard from it.
 *
 * @example
 * await buildDashboard(); // apps/dashboard/dist is complete, ready for GET /dashboard/
 */
export async function buildDashboard(): Promise<void> {
  const stamp = `${process.pid}-${Date.now()}`;
  const fresh = join(appDir, `dist-build-${stamp}`);
  const stale = join(appDir, `dist-old-${stamp}`);
  const dist = join(appDir, 'dist');
  try {
    await build({
      root: appDir,
      configFile: join(appDir, 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir: fresh, emptyOutDir: true },
    });
    if (existsSync(dist)) renameSync(dist, stale);
    renameSync(fresh, dist);
  } finally {
    rmSync(fresh, { recursive: true, force: true });
    rmSync(stale, { recursive: true, force: true });
  }
}
