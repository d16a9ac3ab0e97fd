/**
 * Browser test of the dashboard against the real API (embedded mode, fake model server, recording
 * tool endpoint), driving Debian's Chromium with playwright-core.
 *
 *   pnpm vitest run apps/dashboard/e2e      (part of `pnpm test`; builds the dashboard first)
 *
 * The SPA is served from dist/ by a tiny static server that forwards /v1 to the API, so it talks
 * to the API same-origin, as it will when the API serves /dashboard. Screenshots go to
 * test-artifacts/dashboard/ and their paths are printed.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoResponder } from '@agentry/testkit';
import { chromium, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, describe, it } from 'vitest';
import { createTenant, startHarness } from '../../api/src/test-support/harness.ts';
import { fieldId } from '../src/config/field-pointer.ts';
import { startStaticServer } from './static-server.ts';

const appDir = fileURLToPath(new URL('../', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const shotsDir = join(repoRoot, 'test-artifacts/dashboard');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const TOOL = 'save_customer_information';
const byPointer = (pointer: string) => `#${fieldId(pointer)}`;

const cleanup: Array<() => Promise<unknown> | unknown> = [];
const screenshots: string[] = [];
let currentPage: Page | undefined;

async function shot(page: Page, name: string): Promise<void> {
  const path = join(shotsDir, `${String(screenshots.length + 1).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path, fullPage: true });
  screenshots.push(path);
  console.log(`  screenshot: ${path}`);
}

async function step(name: string, fn: () => Promise<void>): Promise<void> {
  const started = Date.now();
  try {
    await fn();
    console.log(`✓ ${name} (${Date.now() - started} ms)`);
  } catch (error) {
    console.log(`✗ ${name}`);
    if (currentPage) await shot(currentPage, 'failure').catch(() => {});
    throw error;
  }
}

async function main(): Promise<void> {
  mkdirSync(shotsDir, { recursive: true });
  console.log('building the dashboard…');
  await build({ root: appDir, configFile: join(appDir, 'vite.config.ts'), logLevel: 'warn' });

  // The same platform the API tests use: embedded mode, fake model, recording tool endpoint.
  const h = await startHarness('embedded', 'openai');
  cleanup.push(() => h.close());
  h.llm.setResponder(demoResponder);
  const { platform, endpoint } = h;
  const key = await createTenant(h, 'Dashboard e2e');

  // Once the API serves the dashboard itself, test that; until then a static server stands in.
  const served = await fetch(`${platform.url}/dashboard/`).then(
    (r) => r.ok && (r.headers.get('content-type') ?? '').includes('html'),
  );
  let base = `${platform.url}/dashboard/`;
  if (!served) {
    const server = await startStaticServer(join(appDir, 'dist'), platform.url);
    cleanup.push(() => server.close());
    base = `${server.url}/dashboard/`;
  }
  console.log(`dashboard at ${base} (${served ? 'served by the API' : 'static server + /v1 proxy'})`);

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
    ],
  });
  cleanup.push(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  currentPage = page;
  const consoleErrors: string[] = [];
  page.on('pageerror', (e) => consoleErrors.push(e.message));

  await step('log in with the tenant key', async () => {
    await page.goto(base);
    await page.locator('#login-key').waitFor();
    await shot(page, 'login');
    await page.fill('#login-key', 'sk_not-a-real-key-123');
    await page.click('#login-submit');
    await page.getByText('did not accept this key').waitFor();
    await page.fill('#login-key', key);
    await page.click('#login-submit');
    await page.getByRole('heading', { name: 'Agents' }).waitFor();
    await shot(page, 'agents-empty');
  });

  await step('start a blank agent', async () => {
    await page.click('#new-agent');
    await page.locator('#create-blank').waitFor();
    await shot(page, 'create-dialog');
    await page.click('#create-blank');
    await page.locator(byPointer('/basic_settings/name')).waitFor();
  });

  await step('fill the basic settings through the form', async () => {
    await page.fill(byPointer('/basic_settings/name'), 'Demo Booker');
    await page.fill(byPointer('/basic_settings/description'), 'Books product demos for website visitors');
    await page.fill(byPointer('/basic_settings/background'), 'Acme sells scheduling software to clinics.');
    await page.fill(byPointer('/basic_settings/language'), 'English');
    await page.fill(byPointer('/basic_settings/tone'), 'Friendly and professional');
    await shot(page, 'editor-settings');
  });

  const tool = '/tools/0';
  const body = `${tool}/endpoint/body`;
  const params = `${tool}/parameters`;
  await step('add the HTTP tool with parameters and a body template', async () => {
    await page.click('#tab-tools');
    await page.click('#add-tool');
    await page.fill(byPointer(`${tool}/name`), TOOL);
    await page.fill(byPointer(`${tool}/description`), 'Save customer info to CRM');
    for (const [i, name, description, required] of [
      [0, 'email', 'Customer email', true],
      [1, 'name', 'Customer name', false],
    ] as const) {
      await page.click(`${byPointer(params)}-add`);
      await page.fill(`${byPointer(params)}-row${i}-name`, name);
      await page.fill(`${byPointer(params)}-row${i}-description`, description);
      if (required) await page.check(`${byPointer(params)}-row${i}-required`);
    }
    await page.fill(byPointer(`${tool}/endpoint/url`), `${endpoint.url}/contacts/add`);
    await page.click(`${byPointer(body)}-add`);
    await page.fill(`${byPointer(body)}-row0-key`, 'email');
    await page.fill(`${byPointer(body)}-row0-value`, '{{emial}}');
  });

  await step('see the inline error for the misspelled placeholder', async () => {
    const issue = page.locator(`${byPointer(body)}-row0-issues li[data-code="unknown_placeholder"]`);
    await issue.waitFor();
    const text = (await issue.textContent()) ?? '';
    assert.match(text, /emial/);
    assert.match(text, /email/, 'the hint suggests the right name');
    await page.locator(`${byPointer(body)}-row0-value[aria-invalid="true"]`).waitFor();
    await shot(page, 'editor-inline-error');
  });

  await step('fix it with placeholder chips', async () => {
    const chip = (token: string) => page.locator('.chip-palette button', { hasText: token }).first();
    const value = page.locator(`${byPointer(body)}-row0-value`);
    await value.fill('');
    await value.focus();
    await chip('{{email}}').click();
    assert.equal(await value.inputValue(), '{{email}}');
    for (const [i, k, token] of [
      [1, 'name', '{{name}}'],
      [2, 'dialogId', '{{context.dialogId}}'],
    ] as const) {
      await page.click(`${byPointer(body)}-add`);
      await page.fill(`${byPointer(body)}-row${i}-key`, k);
      await page.locator(`${byPointer(body)}-row${i}-value`).focus();
      await chip(token).click();
    }
    await page.locator(`${byPointer(body)}-row0-issues`).waitFor({ state: 'detached' });
  });

  await step('add the action book that uses the tool', async () => {
    await page.click('#tab-actions');
    await page.click('#add-action-book');
    await page.fill(byPointer('/action_books/0/condition'), 'When customer wants to schedule demo');
    await page.fill(byPointer('/action_books/0/action'), `Save their info using ${TOOL}`);
    await page.getByRole('checkbox', { name: TOOL }).check();
    await page.locator('#validation-state', { hasText: 'Valid' }).waitFor();
    await shot(page, 'editor-action-books');
  });

  await step('the JSON tab shows the config built by the form', async () => {
    await page.click('#tab-json');
    const json = JSON.parse(await page.locator('#config-json').inputValue());
    assert.deepEqual(json.tools[0].endpoint.body, {
      email: '{{email}}',
      name: '{{name}}',
      dialogId: '{{context.dialogId}}',
    });
    assert.deepEqual(json.tools[0].parameters.required, ['email']);
    assert.deepEqual(json.action_books[0].tools, [TOOL]);
    await shot(page, 'editor-json');
  });

  await step('test the tool: preview the request, then send it', async () => {
    await page.click('#tab-tools');
    await page.click('#test-tool-0');
    await page.fill(`#tester-${TOOL}-email`, 'ada@example.com');
    await page.fill(`#tester-${TOOL}-name`, 'Ada');
    await page.click(`#tester-${TOOL}-preview`);
    await page.locator('.request-line', { hasText: '/contacts/add' }).waitFor();
    assert.equal(endpoint.requests.length, 0, 'preview sends nothing');
    await page.click(`#tester-${TOOL}-send`);
    await page.locator('#tester-status', { hasText: '200' }).waitFor();
    assert.equal(endpoint.requests.length, 1);
    assert.deepEqual(endpoint.requests[0]?.json, {
      email: 'ada@example.com',
      name: 'Ada',
      dialogId: 'conversation-under-test',
    });
    await page.locator('.tool-tester').scrollIntoViewIfNeeded();
    await shot(page, 'tool-tester');
  });

  await step('save and publish version 1', async () => {
    await page.click('#save-publish');
    await page.locator('#editor-notice', { hasText: 'published version 1' }).waitFor();
  });

  await step('chat in the playground and see the tool call trace', async () => {
    await page.click('#tab-playground');
    await page.fill('#playground-input', 'Hi, my name is Ada Lovelace and my email is ada@example.com');
    await page.click('#playground-send');
    await page.locator('.trace .tool-call', { hasText: TOOL }).waitFor({ timeout: 30_000 });
    await page.locator('.bubble-assistant').waitFor();
    const trace = (await page.locator('.trace').first().textContent()) ?? '';
    assert.match(trace, /ada@example\.com/);
    assert.match(trace, /Step 2/);
    assert.match(trace, /tokens/);
    assert.equal(endpoint.requests.length, 2);
    const hit = endpoint.requests[1]?.json as Record<string, string>;
    assert.equal(hit.email, 'ada@example.com');
    assert.ok(hit.dialogId && hit.dialogId !== 'conversation-under-test', 'dialogId is the real conversation id');
    await shot(page, 'playground');
  });

  await step('change the tone, publish version 2, and diff it', async () => {
    await page.click('#tab-settings');
    await page.fill(byPointer('/basic_settings/tone'), 'Warm and concise');
    await page.click('#save-publish');
    await page.locator('#editor-notice', { hasText: 'published version 2' }).waitFor();
    await page.click('#tab-versions');
    await page.locator('#versions-table tr[data-version="2"] .badge-ok').waitFor();
    await page.locator('table.diff', { hasText: 'Warm and concise' }).waitFor();
    await shot(page, 'versions-diff');
  });

  await step('roll back to version 1 in one click', async () => {
    await page.click('#publish-v1');
    await page.locator('#versions-table tr[data-version="1"] .badge-ok').waitFor();
    const agents = await fetch(`${platform.url}/v1/agents`, { headers: { authorization: `Bearer ${key}` } }).then((r) =>
      r.json(),
    );
    assert.equal(agents.data[0].published_version, 1);
    await shot(page, 'versions-rolled-back');
  });

  await step('the system prompt is shown read-only', async () => {
    await page.click('#tab-prompt');
    await page.locator('pre.prompt', { hasText: 'Demo Booker' }).waitFor();
    await shot(page, 'prompt');
  });

  await step('find the conversation in the list and open its transcript', async () => {
    await page.getByRole('link', { name: 'Conversations' }).click();
    const row = page.locator('#conversations-table tbody tr').first();
    await row.waitFor();
    await shot(page, 'conversations');
    await row.locator('a').first().click();
    await page.locator('.message-tool').waitFor();
    await page.getByRole('button', { name: 'Show run trace' }).first().click();
    await page.locator('.trace .tool-call', { hasText: TOOL }).waitFor();
    await shot(page, 'transcript');
  });

  await step('switch the UI to Chinese', async () => {
    await page.goto(`${base}#/agents`);
    await page.selectOption('#language', 'zh');
    await page.getByRole('heading', { name: '智能体' }).waitFor();
    await page.locator('#agents-table', { hasText: 'Demo Booker' }).waitFor();
    await shot(page, 'agents-zh');
  });

  assert.deepEqual(consoleErrors, [], 'no uncaught errors in the page');
  console.log(`\n${screenshots.length} screenshots in ${shotsDir}`);
}

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `[dashboard e2e] NOTICE: no Chromium at ${CHROMIUM}: the browser tests are SKIPPED (apt-get install -y chromium).`,
  );
}

describe.runIf(hasChromium)('the dashboard in Chromium, against the real API', () => {
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await Promise.resolve(fn()).catch(() => {});
  });
  it('logs in, builds the demo-booking agent through the form, tests its tool, chats, publishes and rolls back', async () => {
    await main();
  }, 240_000);
});
