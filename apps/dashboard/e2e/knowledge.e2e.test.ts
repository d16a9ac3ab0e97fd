/**
 * Knowledge bases in Chromium, against the real API: an owner creates a base, drops a Markdown file
 * and picks a PDF (made here with pdf-lib), watches each file's progress bar reach "Ready", previews
 * the chunks, runs a test question and sees the hit (title, heading path, page, score, snippet),
 * attaches the base to an agent in the editor (auto mode, 3 sources), publishes, and asks the
 * playground a question: the answer shows its source. A viewer of the same tenant sees the base
 * read-only (no upload, no delete).
 *
 *   pnpm vitest run apps/dashboard/e2e/knowledge.e2e.test.ts     (builds the dashboard first)
 *
 * Screenshots go to test-artifacts/dashboard-knowledge/.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions } from '@agentry/testkit';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { chromium, type Page } from 'playwright-core';
import { invitationToken } from '../../api/src/test-support/accounts.ts';
import { call, type Harness, startHarness } from '../../api/src/test-support/harness.ts';
import { fieldId } from '../src/config/field-pointer.ts';
import { browserSuite, signedInOwner } from './browser-suite.ts';
import { buildDashboard } from './build-dashboard.ts';
import { walkthrough } from './walkthrough.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const shotsDir = join(repoRoot, 'test-artifacts/dashboard-knowledge');
const EMAIL = 'kb-owner@northwind.example';
const VIEWER = 'kb-viewer@northwind.example';
const PASSWORD = 'correct horse battery';
const BASE = 'Northwind Handbook';

const cleanup: Array<() => Promise<unknown> | unknown> = [];

const MARKDOWN = `# Returns and refunds

## Refunds

Refunds are paid back to the original card within 14 days after we receive the returned parcel.
Shipping costs are refunded only when the item arrived damaged.

## Exchanges

Exchanges for another size are free within 30 days of delivery.
`;

/** A two-page PDF with real text (pdf-lib's standard font), the second page about warranty. */
async function warrantyPdf(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const pages = [
    ['Northwind warranty', 'Every Northwind kettle comes with a warranty.'],
    ['Warranty period', 'The warranty lasts two years from the date of purchase and covers the heating element.'],
  ];
  for (const [title, text] of pages) {
    const page = pdf.addPage([595, 842]);
    page.drawText(title ?? '', { x: 50, y: 780, size: 20, font });
    page.drawText(text ?? '', { x: 50, y: 740, size: 11, font });
  }
  return Buffer.from(await pdf.save());
}

/** A member invited with `role` by the owner's key, who accepted and signed in: the session cookie. */
async function signedInMember(h: Harness, key: string, email: string, role: 'viewer' | 'editor'): Promise<string> {
  const invited = await call(h, 'POST', '/v1/invitations', { key, body: { email, role } });
  assert.equal(invited.status, 201, JSON.stringify(invited.json));
  const token = await invitationToken(h, email, invited.json);
  const accepted = await call(h, 'POST', '/v1/auth/accept-invitation', { body: { token, password: PASSWORD } });
  assert.equal(accepted.status, 200, JSON.stringify(accepted.json));
  const login = await fetch(`${h.platform.url}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  assert.equal(login.status, 200);
  const session = /agentry_session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
  assert.ok(session, 'the login set the session cookie');
  return session;
}

/** Drops files on the drop zone the way a browser does: a `drop` event carrying a DataTransfer of Files. */
async function dropFiles(page: Page, selector: string, files: Array<{ name: string; type: string; text: string }>) {
  const transfer = await page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([f.text], f.name, { type: f.type }));
    return dt;
  }, files);
  await page.dispatchEvent(selector, 'dragover', { dataTransfer: transfer });
  await page.dispatchEvent(selector, 'drop', { dataTransfer: transfer });
}

/** Records every stage an upload row goes through (the bar moves faster than a test can poll). */
async function recordStages(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: Record<string, string[]> = {};
    (window as unknown as { uploadStages: typeof seen }).uploadStages = seen;
    const note = (el: Element) => {
      const file = el.getAttribute('data-file');
      const stage = el.getAttribute('data-stage');
      if (!file || !stage) return;
      const list = seen[file] ?? [];
      seen[file] = list;
      if (list.at(-1) !== stage) list.push(stage);
    };
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === 'attributes' && r.target instanceof Element) note(r.target);
        for (const n of r.addedNodes)
          if (n instanceof Element) for (const el of n.querySelectorAll('[data-stage]')) note(el);
        if (r.target instanceof Element) for (const el of r.target.querySelectorAll('[data-stage]')) note(el);
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-stage'] });
  });
}

async function main(): Promise<void> {
  const walk = walkthrough(shotsDir);
  walk.start();
  const { step } = walk;
  await buildDashboard();
  const h = await startHarness('embedded', 'openai');
  cleanup.push(() => h.close());
  const { key, session } = await signedInOwner(h, {
    tenant: 'Northwind',
    email: EMAIL,
    password: PASSWORD,
    name: 'Kim',
  });
  const agent = await call(h, 'POST', '/v1/agents', {
    key,
    body: { config: { basic_settings: { name: 'Nora', description: 'Customer service of Northwind' } }, publish: true },
  });
  assert.equal(agent.status, 201, JSON.stringify(agent.json));
  const agentId: string = agent.json.id;
  const base = `${h.platform.url}/dashboard/`;

  const browser = await chromium.launch(chromiumLaunchOptions());
  cleanup.push(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  await context.addCookies([{ name: 'agentry_session', value: session, url: h.platform.url }]);
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  walk.page = page;
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  let baseId = '';

  await step('the Knowledge page: create a base with a name and a description', async () => {
    await page.goto(`${base}#/knowledge`);
    await page.locator('#nav-knowledge[aria-current="page"]').waitFor();
    await page.locator('p.empty', { hasText: 'No knowledge bases yet' }).waitFor();
    await page.click('#new-knowledge-base');
    await page.fill('#knowledge-name', BASE);
    await page.fill('#knowledge-description', 'Returns, refunds and warranty.');
    await walk.shot(page, 'create-base', { fullPage: false });
    await page.click('#create-knowledge-submit');
    await page.locator('#knowledge-base-name', { hasText: BASE }).waitFor();
    baseId = decodeURIComponent(new URL(page.url()).hash.split('/')[2] ?? '');
    assert.ok(baseId, 'the new base opened');
  });

  await step('drop a Markdown file, pick a PDF, and a picture the page refuses before uploading', async () => {
    await recordStages(page);
    await dropFiles(page, '#knowledge-dropzone', [{ name: 'refunds.md', type: 'text/markdown', text: MARKDOWN }]);
    await page.setInputFiles('#knowledge-file', [
      { name: 'warranty.pdf', mimeType: 'application/pdf', buffer: await warrantyPdf() },
      { name: 'holiday.png', mimeType: 'image/png', buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
    ]);
    const rejected = page.locator('#upload-list li[data-file="holiday.png"]');
    await rejected.locator('.upload-status', { hasText: 'This file type is not supported' }).waitFor();
    for (const file of ['refunds.md', 'warranty.pdf'])
      await page.locator(`#upload-list li[data-file="${file}"] progress`).waitFor();
    await walk.shot(page, 'uploading');
  });

  await step('each file’s bar goes from uploading through processing to ready', async () => {
    for (const file of ['refunds.md', 'warranty.pdf']) {
      await page.locator(`#upload-list li[data-file="${file}"][data-stage="ready"]`).waitFor({ timeout: 60_000 });
      assert.equal(
        await page
          .locator(`#upload-list li[data-file="${file}"] progress`)
          .evaluate((p) => (p as HTMLProgressElement).value),
        1,
      );
    }
    const stages = await page.evaluate(
      () => (window as unknown as { uploadStages: Record<string, string[]> }).uploadStages,
    );
    for (const file of ['refunds.md', 'warranty.pdf']) {
      const seen = stages[file] ?? [];
      assert.equal(seen.at(-1), 'ready', `${file}: ${seen.join(' → ')}`);
      assert.ok(seen.includes('uploading'), `${file} showed its upload: ${seen.join(' → ')}`);
    }
    walk.log(`  stages: ${JSON.stringify(stages)}`);
    const rows = page.locator('#documents-table tbody tr');
    await page.locator('#documents-table tbody tr[data-status="ready"]').nth(1).waitFor();
    assert.equal(await rows.count(), 2);
    const pdfRow = page.locator('#documents-table tbody tr', { hasText: 'warranty.pdf' });
    assert.equal((await pdfRow.locator('td').nth(2).textContent())?.trim(), '2', 'the PDF has two pages');
    await page.locator('#knowledge-base-totals', { hasText: '2 document(s)' }).waitFor();
    await walk.shot(page, 'ready');
  });

  await step('preview the chunks of the Markdown document', async () => {
    await page
      .locator('#documents-table tbody tr', { hasText: 'refunds.md' })
      .locator('[data-action="preview"]')
      .click();
    const preview = page.locator('#chunk-preview');
    await preview.locator('.chunk-text', { hasText: '14 days' }).waitFor();
    await preview.locator('.heading-path', { hasText: 'Refunds' }).first().waitFor();
    await walk.shot(page, 'chunk-preview');
    await preview.getByRole('button', { name: 'Close' }).click();
  });

  await step('a test question finds the passage, with its heading path, score and snippet', async () => {
    await page.fill('#knowledge-query', 'How long do refunds take?');
    await page.click('#knowledge-search');
    // The passage is among the hits (their order is the search's business, tested where it is made).
    const hit = page.locator('#search-results .hit', { hasText: '14 days' });
    await hit.waitFor();
    assert.match((await hit.locator('.hit-title').textContent()) ?? '', /refunds/i);
    assert.match((await hit.locator('.heading-path').textContent()) ?? '', /Refunds/);
    assert.match((await hit.locator('.badge').textContent()) ?? '', /score \d\.\d{3}/);
    await page.fill('#knowledge-query', 'How long is the warranty?');
    await page.click('#knowledge-search');
    await page
      .locator('#search-results .hit', { hasText: 'two years' })
      .locator('.page', { hasText: 'page 2' })
      .waitFor();
    await walk.shot(page, 'test-query');
  });

  await step('the list shows the base with its counts', async () => {
    await page.click('#nav-knowledge');
    const row = page.locator(`#knowledge-bases-table tr[data-base="${BASE}"]`);
    await row.waitFor();
    assert.equal((await row.locator('td').nth(1).textContent())?.trim(), '2');
    await walk.shot(page, 'bases-list', { fullPage: false });
  });

  await step('attach the base in the agent editor: always look things up, 3 sources; publish', async () => {
    await page.goto(`${base}#/agents/${agentId}`);
    const section = page.locator('#knowledge-section');
    await section.locator(`input[data-base="${BASE}"]`).check();
    await page.check(`#${fieldId('/knowledge/mode')}-auto`);
    await page.fill(`#${fieldId('/knowledge/top_k')}`, '3');
    await section.scrollIntoViewIfNeeded();
    await walk.shot(page, 'editor-knowledge', { fullPage: false });
    await page.click('#save-publish');
    await page.locator('#editor-notice', { hasText: 'published' }).waitFor();
    const stored = await call(h, 'GET', `/v1/agents/${agentId}`, { key });
    const version = await call(h, 'GET', `/v1/agents/${agentId}/versions/${stored.json.published_version}`, { key });
    assert.deepEqual(version.json.config.knowledge, { bases: [BASE], mode: 'auto', top_k: 3 });
  });

  await step('a viewer sees the base read-only', async () => {
    const viewerSession = await signedInMember(h, key, VIEWER, 'viewer');
    const viewer = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    cleanup.push(() => viewer.close());
    await viewer.addCookies([{ name: 'agentry_session', value: viewerSession, url: h.platform.url }]);
    const vp = await viewer.newPage();
    vp.on('pageerror', (e) => pageErrors.push(e.message));
    await vp.goto(`${base}#/knowledge`);
    await vp.locator(`#knowledge-bases-table tr[data-base="${BASE}"]`).waitFor();
    assert.equal(await vp.locator('#new-knowledge-base').count(), 0);
    await vp.goto(`${base}#/knowledge/${baseId}`);
    await vp.locator('#documents-table tbody tr[data-status="ready"]').first().waitFor();
    assert.equal(await vp.locator('#knowledge-file').count(), 0, 'no upload');
    assert.equal(await vp.locator('#delete-knowledge-base').count(), 0, 'no delete');
    assert.equal(await vp.locator('#documents-table').getByRole('button', { name: 'Delete' }).count(), 0);
    await walk.shot(vp, 'viewer');
  });

  await step('the playground: the answer shows its source', async () => {
    h.llm.enqueue({ type: 'reply', text: 'Refunds reach your card within 14 days of the parcel arriving [1].' });
    await page.click('#tab-playground');
    await page.fill('#playground-input', 'How long do refunds take?');
    await page.locator('#playground-send:not([disabled])').click();
    const turn = page.locator('.turn').last();
    await turn.locator('.bubble-assistant', { hasText: '14 days' }).waitFor();
    const source = turn.locator('.citations li, .citation, [data-citation]').first();
    await source.waitFor();
    assert.match((await source.textContent()) ?? '', /refunds/i);
    // The auto search's passage went to the model with the question.
    const sent = JSON.stringify(h.llm.requests.at(-1));
    assert.match(sent, /14 days after we receive the returned parcel/);
    await walk.shot(page, 'playground-citation');
  });

  assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
}

browserSuite(
  'dashboard knowledge e2e',
  'knowledge bases in the dashboard, in Chromium against the real API',
  'creates a base, uploads with progress, searches it, attaches it to an agent and sees a cited answer',
  main,
  cleanup,
  240_000,
);
