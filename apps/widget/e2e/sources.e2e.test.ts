/**
 * The widget's "Sources" list rendered in Chromium (the real DOM and URL parser): hostile titles
 * stay text, only http(s) sources become links, and links open without access to the page.
 *
 *   pnpm vitest run apps/widget/e2e/sources.e2e.test.ts
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions } from '@agentry/testkit';
import { chromium } from 'playwright-core';
import { build, type Rolldown } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('../src/sources.ts', import.meta.url));
const HOSTILE = '<img src=x onerror="window.__xss=1">Refunds</b>';

/** The sources module as one script that puts its exports on `window.AgentrySources`. */
async function bundle(): Promise<string> {
  const out = (await build({
    configFile: false,
    logLevel: 'warn',
    build: {
      write: false,
      minify: false,
      lib: { entry, formats: ['iife'], name: 'AgentrySources', fileName: 'sources' },
    },
  })) as Rolldown.RolldownOutput | Rolldown.RolldownOutput[];
  const first = Array.isArray(out) ? out[0]! : out;
  const chunk = first.output.find((o) => o.type === 'chunk');
  if (chunk?.type !== 'chunk') throw new Error('no bundle');
  return chunk.code;
}

const hasChromium = existsSync(chromiumLaunchOptions().executablePath);
if (!hasChromium) console.warn('[widget sources e2e] NOTICE: no Chromium: SKIPPED (apt-get install -y chromium).');

describe.runIf(hasChromium)('the widget’s sources list in Chromium', () => {
  let close: (() => Promise<void>) | undefined;
  let render: (
    citations: unknown[],
  ) => Promise<{ html: string; links: Array<Record<string, string | null>>; text: string; xss: unknown }>;
  beforeAll(async () => {
    const code = await bundle();
    const browser = await chromium.launch(chromiumLaunchOptions());
    close = () => browser.close();
    const page = await browser.newPage();
    await page.setContent('<!doctype html><body></body>');
    await page.addScriptTag({ content: code });
    render = (citations) =>
      page.evaluate((list) => {
        const w = window as unknown as {
          AgentrySources: {
            renderSources(c: unknown[], t: (k: string, v?: Record<string, string>) => string): HTMLElement | undefined;
          };
          __xss?: unknown;
        };
        document.body.replaceChildren();
        const t = (key: string, vars?: Record<string, string>) =>
          key === 'sourcePage' ? `page ${vars?.page}` : 'Sources';
        const el = w.AgentrySources.renderSources(list, t);
        if (el) document.body.append(el);
        return {
          html: document.body.innerHTML,
          text: document.body.textContent ?? '',
          links: [...document.querySelectorAll('a')].map((a) => ({
            href: a.getAttribute('href'),
            rel: a.getAttribute('rel'),
            target: a.getAttribute('target'),
            text: a.textContent,
          })),
          xss: w.__xss,
        };
      }, citations);
  }, 120_000);
  afterAll(async () => {
    await close?.();
  });

  const citation = (over: Record<string, unknown>) => ({
    marker: 1,
    document_id: '0190f3a4-c2b1-7c9e-8d6a-5b4c3d2e1f00',
    knowledge_base_id: '0190f3a4-c2b1-7c9e-8d6a-5b4c3d2e1f01',
    title: 'Refund policy',
    url: null,
    page: null,
    heading_path: [],
    snippet: '',
    ...over,
  });

  it('lists title, heading path and page; links only http(s) URL sources, in a new tab without opener', async () => {
    const shown = await render([
      citation({ marker: 1, title: 'Refund policy', heading_path: ['Billing', 'Refunds'], page: 3 }),
      citation({ marker: 2, title: 'Shipping', url: 'https://help.example.com/shipping' }),
      citation({ marker: 3, title: 'Evil', url: 'javascript:window.__xss=2' }),
      citation({ marker: 4, title: 'Evil too', url: ' JaVaScRiPt:window.__xss=3' }),
      citation({ marker: 5, title: 'Data', url: 'data:text/html,<script>window.__xss=4</script>' }),
      citation({ marker: 6, title: 'Relative', url: '/admin' }),
    ]);
    expect(shown.text).toContain('Sources');
    expect(shown.text).toContain('[1] Refund policy — Billing › Refunds · page 3');
    expect(shown.links).toEqual([
      { href: 'https://help.example.com/shipping', rel: 'noopener noreferrer', target: '_blank', text: 'Shipping' },
    ]);
    expect(shown.text).toContain('[3] Evil');
    expect(shown.html).not.toContain('javascript:');
    expect(shown.html).not.toContain('data:');
  });

  it('keeps hostile titles and headings as text', async () => {
    const shown = await render([
      citation({
        title: HOSTILE,
        heading_path: ['<script>window.__xss=5</script>'],
        url: 'https://x.example/"><img src=x onerror=window.__xss=6>',
      }),
    ]);
    expect(shown.xss).toBeUndefined();
    expect(shown.text).toContain(HOSTILE);
    expect(shown.html).not.toContain('<img');
    expect(shown.html).not.toContain('<script');
    expect(shown.links[0]?.href).toMatch(/^https:\/\/x\.example\//);
  });

  it('renders nothing for no citations or a malformed list', async () => {
    expect((await render([])).html).toBe('');
  });
});
