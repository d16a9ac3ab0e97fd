import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { onTestFinished } from 'vitest';

/**
 * A browser walk-through's record: numbered full-page screenshots in `dir` (emptied by `start`) and
 * named steps that log their time, and on failure save a screenshot of the page being driven.
 * The log is printed as one block when the test ends (vitest prints each console.log as a block of
 * its own, headed by the test's long name: dozens per run); a failing step is printed at once.
 * `start` must run inside the test.
 *
 * @example
 * const walk = walkthrough(join(repoRoot, 'test-artifacts/dashboard'));
 * walk.start();
 * walk.page = page;
 * await walk.step('sign in', async () => { …; await walk.shot(page, 'login'); });
 */
export function walkthrough(dir: string) {
  const screenshots: string[] = [];
  const lines: string[] = [];
  const walk = {
    dir,
    screenshots,
    /** Empties the screenshot folder (called when the walk-through starts, not when its file loads). */
    start(): void {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      screenshots.length = 0;
      lines.length = 0;
      onTestFinished(() => {
        if (lines.length > 0) console.log([...lines, `${screenshots.length} screenshots in ${dir}`].join('\n'));
      });
    },
    /** A line for the log printed when the test ends. */
    log(line: string): void {
      lines.push(line);
    },
    /** The page a failing step screenshots. */
    page: undefined as Page | undefined,
    async shot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
      const path = join(dir, `${String(screenshots.length + 1).padStart(2, '0')}-${name}.png`);
      await page.screenshot({ path, fullPage: options.fullPage ?? true });
      screenshots.push(path);
      lines.push(`  screenshot: ${path}`);
    },
    async step(name: string, fn: () => Promise<void>): Promise<void> {
      const started = Date.now();
      try {
        await fn();
        lines.push(`✓ ${name} (${Date.now() - started} ms)`);
      } catch (error) {
        lines.push(`✗ ${name}`);
        console.error(`✗ ${name}`);
        if (walk.page) await walk.shot(walk.page, 'failure').catch(() => {});
        throw error;
      }
    },
  };
  return walk;
}
