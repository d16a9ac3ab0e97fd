import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { BenchResult } from './run.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Builds an app with its own Vite config (the same build `pnpm start` runs). */
async function build(app: string): Promise<string> {
  const dir = join(root, 'apps', app);
  const { build: viteBuild } = await import(join(dir, 'node_modules/vite/dist/node/index.js'));
  await viteBuild({ root: dir, configFile: join(dir, 'vite.config.ts'), logLevel: 'warn' });
  return join(dir, 'dist');
}

/** Gzipped bytes (level 9, as a CDN would serve them) of the JS a first page load fetches. */
function gzippedKb(files: string[]): number {
  return files.reduce((sum, file) => sum + gzipSync(readFileSync(file), { level: 9 }).length, 0) / 1024;
}

/** The scripts `index.html` loads directly (lazy chunks excluded). */
function initialScripts(dist: string): string[] {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  return [...html.matchAll(/<script[^>]+src="([^"]+\.js)"/g)].map((m) =>
    join(dist, m[1]!.replace(/^\/dashboard\//, '')),
  );
}

/** Bundle sizes: the dashboard's initial load (target < 300 KB gz) and the widget (target < 40 KB gz). */
export async function run(): Promise<BenchResult[]> {
  const dashboard = await build('dashboard');
  const widget = await build('widget');
  const widgetJs = readdirSync(widget)
    .filter((f) => f.endsWith('.js'))
    .map((f) => join(widget, f));
  const size = (name: string, kb: number, note: string): BenchResult => ({
    name,
    unit: 'KB gzip',
    median: kb,
    p99: kb,
    note,
  });
  return [
    size('dashboard initial JavaScript', gzippedKb(initialScripts(dashboard)), 'target < 300 KB'),
    size('widget.js', gzippedKb(widgetJs), 'target < 40 KB'),
  ];
}
