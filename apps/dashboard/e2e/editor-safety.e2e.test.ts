/**
 * The agent editor does not lose a non-developer's work (issue 24), in Chromium against the real
 * API: a blank agent shows no errors until a field is touched or a save is tried, then errors name
 * the field by its label; parameters, headers, query and body rows keep the order they were typed
 * in after saving and reloading (and in the stored config); leaving with unsaved changes asks first
 * (in-app links and reload), saving ends the asking; versions are labelled live / previously
 * published / draft; a roll back asks "Make version 1 live?" and the editor then holds version 1.
 *
 *   pnpm vitest run apps/dashboard/e2e/editor-safety.e2e.test.ts     (builds the dashboard first)
 *
 * Screenshots go to test-artifacts/dashboard-editor-safety/.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions } from '@agentry/testkit';
import { chromium, type Dialog, type Page } from 'playwright-core';
import { type Harness, startHarness } from '../../api/src/test-support/harness.ts';
import { fieldId } from '../src/config/field-pointer.ts';
import { browserSuite, signedInOwner } from './browser-suite.ts';
import { buildDashboard } from './build-dashboard.ts';
import { walkthrough } from './walkthrough.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const shotsDir = join(repoRoot, 'test-artifacts/dashboard-editor-safety');
const EMAIL = 'editor-owner@northwind.example';
const PASSWORD = 'correct horse battery';

const cleanup: Array<() => Promise<unknown> | unknown> = [];
const field = (pointer: string) => `#${fieldId(pointer)}`;
const T = '/tools/0';

/** Rows typed on purpose out of alphabetical and length order (jsonb would sort them). */
const PARAMS = ['zeta', 'alpha', 'mid'];
const HEADERS = ['X-Tenant', 'Accept', 'X-A'];
const QUERY = ['sort', 'q', 'limit'];
const BODY = ['zip', 'email', 'id'];

/** A tenant and its owner, signed in through the API: the session cookie. */
async function seed(h: Harness): Promise<{ key: string; session: string }> {
  const { key, session } = await signedInOwner(h, {
    tenant: 'Northwind',
    email: EMAIL,
    password: PASSWORD,
    name: 'Hana',
  });
  return { key, session };
}

/** The keys of a key/value editor's rows, top to bottom. */
async function rowKeys(page: Page, pointer: string): Promise<string[]> {
  const inputs = page.locator(`${field(pointer)} input[id$="-key"]`);
  return Promise.all((await inputs.all()).map((input) => input.inputValue()));
}

/** The parameter names, top to bottom. */
async function paramNames(page: Page): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; ; i++) {
    const input = page.locator(`${field(`${T}/parameters`)}-row${i}-name`);
    if ((await input.count()) === 0) return out;
    out.push(await input.inputValue());
  }
}

async function main(): Promise<void> {
  const walk = walkthrough(shotsDir);
  walk.start();
  const { step, shot } = walk;
  await buildDashboard();
  const h = await startHarness('embedded', 'openai');
  cleanup.push(() => h.close());
  const { key, session } = await seed(h);
  const base = `${h.platform.url}/dashboard/`;
  const api = async (path: string) => {
    const res = await fetch(`${h.platform.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 200, path);
    return { json: await res.clone().json(), text: await res.text() };
  };

  const browser = await chromium.launch(chromiumLaunchOptions());
  cleanup.push(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  await context.addCookies([{ name: 'agentry_session', value: session, url: h.platform.url }]);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  walk.page = page;
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  // Every dialog is recorded and answered by the test's current choice (Playwright's default
  // would dismiss them silently).
  const dialogs: Array<{ type: string; message: string }> = [];
  let answer: 'accept' | 'dismiss' = 'dismiss';
  page.on('dialog', (dialog: Dialog) => {
    dialogs.push({ type: dialog.type(), message: dialog.message() });
    void (answer === 'accept' ? dialog.accept() : dialog.dismiss());
  });
  const name = field('/basic_settings/name');
  const tone = field('/basic_settings/tone');

  await step('a blank agent shows no errors before anything is typed', async () => {
    await page.goto(`${base}#/agents`);
    await page.click('#new-agent');
    await page.click('#create-blank');
    await page.locator(name).waitFor();
    await page.locator('#validation-state', { hasText: 'Not finished' }).waitFor();
    assert.equal(await page.locator('.issues, .issue-summary').count(), 0, 'no error shown yet');
    assert.equal(await page.locator('[aria-invalid="true"]').count(), 0);
    await shot(page, 'blank-agent-no-errors');
  });

  await step('leaving the name field empty shows its error by its label', async () => {
    await page.focus(name);
    await page.focus(field('/basic_settings/description'));
    const issue = page.locator(`${field('/basic_settings/name')}-issues`);
    await issue.waitFor();
    assert.equal((await issue.textContent())?.trim(), 'Name can’t be empty.');
    await page.locator(`${name}[aria-invalid="true"]`).waitFor();
    await shot(page, 'touched-field-error', { fullPage: false });
  });

  await step('adding a tool shows no errors in it until a save is tried, then all by label', async () => {
    await page.fill(name, 'Order Desk');
    await page.click('#tab-tools');
    await page.click('#add-tool');
    await page.locator(field(`${T}/description`)).waitFor();
    await page.locator('#validation-state', { hasText: 'Not finished' }).waitFor();
    assert.equal(await page.locator('.tab-panel .issues').count(), 0, 'a new tool is not an error yet');
    await page.click('#save-draft');
    const description = page.locator(`${field(`${T}/description`)}-issues`);
    await description.waitFor();
    assert.equal((await description.textContent())?.trim(), 'Tool tool_1 › What it does can’t be empty.');
    const summary = (await page.locator('.issue-summary').textContent()) ?? '';
    assert.match(summary, /Tool tool_1 › What it does can’t be empty\./);
    assert.doesNotMatch(summary, /\/tools\/0/, 'no JSON pointers in the summary');
    await shot(page, 'errors-after-save');
  });

  await step('fill the tool: parameters, headers, query and body rows in a chosen order', async () => {
    await page.fill(field(`${T}/name`), 'lookup_order');
    await page.fill(field(`${T}/description`), 'Look an order up');
    await page.fill(field(`${T}/endpoint/url`), `${h.endpoint.url}/orders`);
    const params = field(`${T}/parameters`);
    for (const [i, param] of PARAMS.entries()) {
      await page.click(`${params}-add`);
      await page.fill(`${params}-row${i}-name`, param);
    }
    const rows = async (pointer: string, keys: string[], from: number) => {
      for (const [i, k] of keys.entries()) {
        await page.click(`${field(pointer)}-add`);
        await page.fill(`${field(pointer)}-row${from + i}-key`, k);
        await page.fill(`${field(pointer)}-row${from + i}-value`, `v${i}`);
      }
    };
    // The blank tool starts with a Content-Type header; ours follow it.
    await rows(`${T}/endpoint/headers`, HEADERS, 1);
    await rows(`${T}/endpoint/query_params`, QUERY, 0);
    await rows(`${T}/endpoint/body`, BODY, 0);
    await page.locator('#validation-state', { hasText: 'Valid' }).waitFor();
  });

  let agentId = '';
  await step('save & publish: rows come back in the order typed, after a reload and in the stored JSON', async () => {
    await page.click('#save-publish');
    await page.locator('#editor-notice', { hasText: 'published version 1' }).waitFor();
    agentId = /#\/agents\/([^/]+)/.exec(page.url())?.[1] ?? '';
    assert.ok(agentId, 'the address names the new agent');
    await page.reload();
    await page.click('#tab-tools');
    await page.locator(field(`${T}/name`)).waitFor();
    assert.deepEqual(await paramNames(page), PARAMS);
    assert.deepEqual(await rowKeys(page, `${T}/endpoint/headers`), ['Content-Type', ...HEADERS]);
    assert.deepEqual(await rowKeys(page, `${T}/endpoint/query_params`), QUERY);
    assert.deepEqual(await rowKeys(page, `${T}/endpoint/body`), BODY);
    const stored = await api(`/v1/agents/${agentId}/versions/1`);
    const tool = stored.json.config.tools[0];
    assert.deepEqual(Object.keys(tool.parameters.properties), PARAMS);
    assert.deepEqual(Object.keys(tool.endpoint.headers), ['Content-Type', ...HEADERS]);
    assert.deepEqual(Object.keys(tool.endpoint.query_params), QUERY);
    assert.deepEqual(Object.keys(tool.endpoint.body), BODY);
    assert.ok(stored.text.indexOf('"zip"') < stored.text.indexOf('"email"'), 'the stored text keeps the order');
    await page.locator(`${field(`${T}/endpoint/body`)}`).scrollIntoViewIfNeeded();
    await shot(page, 'order-after-reload');
  });

  await step('unsaved changes: an in-app link asks first; Cancel keeps the edits', async () => {
    await page.click('#tab-settings');
    await page.fill(tone, 'Brisk');
    await page.locator('.badge', { hasText: 'unsaved changes' }).waitFor();
    answer = 'dismiss';
    const before = dialogs.length;
    await page.click('#nav-conversations');
    await page.waitForTimeout(300);
    assert.equal(dialogs.length, before + 1, 'a confirmation was asked');
    assert.equal(dialogs.at(-1)?.type, 'confirm');
    assert.match(dialogs.at(-1)?.message ?? '', /unsaved changes/);
    assert.match(page.url(), new RegExp(`#/agents/${agentId}`), 'still on the agent');
    assert.equal(await page.inputValue(tone), 'Brisk', 'the edit is kept');
    await shot(page, 'guard-cancelled-stays');
  });

  await step('unsaved changes: a reload asks too (beforeunload); staying keeps the edits', async () => {
    const before = dialogs.length;
    await page.reload({ timeout: 3_000 }).catch(() => {});
    assert.equal(dialogs.at(-1)?.type, 'beforeunload', JSON.stringify(dialogs.slice(before)));
    assert.equal(await page.inputValue(tone), 'Brisk', 'the edit survived the refused reload');
  });

  await step('after saving, leaving asks nothing', async () => {
    await page.click('#save-draft');
    await page.locator('#editor-notice', { hasText: 'draft version 2' }).waitFor();
    const before = dialogs.length;
    await page.click('#nav-conversations');
    await page.getByRole('heading', { name: 'Conversations' }).waitFor();
    assert.equal(dialogs.length, before, 'no question after a save');
    await page.goBack();
    await page.locator(tone).waitFor();
  });

  await step('accepting the question leaves and drops the edits', async () => {
    await page.fill(tone, 'Chatty');
    answer = 'accept';
    await page.click('#nav-conversations');
    await page.getByRole('heading', { name: 'Conversations' }).waitFor();
    answer = 'dismiss';
  });

  await step('versions are labelled live, previously published and draft', async () => {
    await page.goto(`${base}#/agents/${agentId}`);
    await page.fill(tone, 'Formal');
    await page.click('#save-publish');
    await page.locator('#editor-notice', { hasText: 'published version 3' }).waitFor();
    await page.click('#tab-versions');
    const status = (v: number) => page.locator(`#versions-table tr[data-version="${v}"] td:nth-child(2)`);
    await status(3).getByText('live').waitFor();
    assert.equal((await status(2).textContent())?.trim(), 'draft');
    assert.equal((await status(1).textContent())?.trim(), 'previously published');
    await shot(page, 'versions-labelled');
  });

  await step('roll back asks "Make version 1 live?"; then the editor holds version 1', async () => {
    await page.click('#publish-v1');
    const question = page.locator('#versions-table tr[data-version="1"] .confirm-question');
    await question.waitFor();
    assert.match((await question.textContent()) ?? '', /^Make version 1 live\?.*instead of version 3/);
    await shot(page, 'rollback-confirm');
    await page.click('#publish-v1-confirm');
    await page.locator('#editor-notice', { hasText: 'Version 1 is live. The editor now shows version 1.' }).waitFor();
    const status = (v: number) => page.locator(`#versions-table tr[data-version="${v}"] td:nth-child(2)`);
    await status(1).getByText('live').waitFor();
    assert.equal((await status(3).textContent())?.trim(), 'previously published');
    assert.equal((await status(2).textContent())?.trim(), 'draft');
    await page
      .locator('#editor-based-on', { hasText: 'Editing a draft based on version 1, the live version' })
      .waitFor();
    assert.equal(await page.locator('.badge', { hasText: 'unsaved changes' }).count(), 0);
    await shot(page, 'rolled-back');
    await page.click('#tab-settings');
    assert.equal(await page.inputValue(tone), '', 'the form shows version 1 (no tone)');
  });

  await step('the System prompt tab says which version it is built from', async () => {
    await page.click('#tab-prompt');
    await page.locator('#prompt-source', { hasText: 'built from version 1, as saved.' }).waitFor();
    await page.locator('pre.prompt', { hasText: 'Order Desk' }).waitFor();
    await shot(page, 'prompt-source');
  });

  await step('opened afresh, the editor says its draft is newer than the live version', async () => {
    await page.reload();
    await page.locator('#editor-based-on', { hasText: 'based on version 3; version 1 is live' }).waitFor();
    await shot(page, 'reopened-based-on', { fullPage: false });
  });

  assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
}

browserSuite(
  'dashboard editor e2e',
  'the agent editor keeps a non-developer’s work, in Chromium against the real API',
  'validates by label after touch or save, keeps row order, guards unsaved edits and rolls back clearly',
  main,
  cleanup,
  240_000,
);
