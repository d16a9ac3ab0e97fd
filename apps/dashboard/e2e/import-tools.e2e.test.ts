/**
 * The agent editor's "Import tools" dialog in Chromium, against the real API (served by it, with its
 * CSP): the Petstore 3.0 document is pasted, read, some operations picked with the mouse and the
 * keyboard, the API key typed; the tools land in the draft, the draft is saved, and the API shows the
 * saved version's tools and the new secret. Then a cURL command becomes a tool, Escape closes the
 * dialog, and the failures (a private URL, a broken document) are shown in plain words.
 *
 *   pnpm vitest run apps/dashboard/e2e/import-tools.e2e.test.ts     (builds the dashboard first)
 *
 * Screenshots go to test-artifacts/dashboard-import/.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions } from '@agentry/testkit';
import { chromium, type Page } from 'playwright-core';
import { call, type Harness, seedConfig, startHarness } from '../../api/src/test-support/harness.ts';
import { browserSuite, signedInOwner } from './browser-suite.ts';
import { buildDashboard } from './build-dashboard.ts';
import { walkthrough } from './walkthrough.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const shotsDir = join(repoRoot, 'test-artifacts/dashboard-import');
const petstore = readFileSync(join(repoRoot, 'packages/tool-import/src/fixtures/petstore-3.0.json'), 'utf8');
const EMAIL = 'import-owner@acme.example';
const PASSWORD = 'correct horse battery';
const SEED_TOOL = 'save_customer_information';
const API_KEY_SECRET = 'SWAGGER_PETSTORE_API_KEY';
const CURL = `curl -X POST https://api.example.com/v1/orders -H 'Content-Type: application/json' -d '{"item":"x","qty":2}'`;

const cleanup: Array<() => Promise<unknown> | unknown> = [];

/** A tenant, its owner (signed in through the API) and an agent with the demo config's one tool. */
async function seed(h: Harness): Promise<{ key: string; agentId: string; session: string }> {
  const { key, session } = await signedInOwner(h, {
    tenant: 'Import Co',
    email: EMAIL,
    password: PASSWORD,
    name: 'Ida',
  });
  const config = seedConfig();
  config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
  const agent = await call(h, 'POST', '/v1/agents', { key, body: { config, publish: true } });
  assert.equal(agent.status, 201, JSON.stringify(agent.json));
  return { key, agentId: agent.json.id, session };
}

async function main(): Promise<void> {
  const walk = walkthrough(shotsDir);
  walk.start();
  const { step } = walk;
  const shot = (page: Page, name: string) => walk.shot(page, name, { fullPage: false });
  await buildDashboard();
  // Loopback is refused (the harness allows it for its fake servers by default), as in production.
  const h = await startHarness('embedded', 'openai', { env: { EGRESS_ALLOWLIST: 'tools.internal.example' } });
  cleanup.push(() => h.close());
  const { key, agentId, session } = await seed(h);
  const base = `${h.platform.url}/dashboard/`;
  assert.equal((await fetch(base)).status, 200, 'the API serves the built dashboard');

  const browser = await chromium.launch(chromiumLaunchOptions());
  cleanup.push(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  await context.addCookies([{ name: 'agentry_session', value: session, url: h.platform.url }]);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  walk.page = page;
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const dialog = page.locator('#import-tools-dialog');
  const toolCard = (name: string) => page.locator(`section[aria-label="Tool ${name}"]`);
  const picked = ['addPet', 'findPetsByStatus', 'getPetById'];

  await step('open the agent’s tools and the Import tools dialog (a lazy chunk)', async () => {
    await page.goto(`${base}#/agents/${agentId}/tools`);
    await toolCard(SEED_TOOL).waitFor();
    await page.click('#import-tools');
    await dialog.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'import-document', 'focus in the textarea');
  });

  await step('paste the Petstore 3.0 document and read it', async () => {
    await page.fill('#import-document', petstore);
    await page.click('#import-read');
    await page.locator('#import-operations').waitFor();
    const rows = page.locator('#import-operations tbody tr');
    assert.equal(await rows.count(), 20, 'every operation of the document is listed');
    assert.equal(await page.locator('#import-operations input:checked').count(), 20, 'all selected at first');
    await page.locator('#import-notes', { hasText: 'updatePetWithForm' }).waitFor();
    await page.locator(`#import-secret-${API_KEY_SECRET}`).waitFor();
    await shot(page, 'import-operations');
  });

  await step('pick three operations (select none, the mouse, then the keyboard), type the API key', async () => {
    await page.click('#import-select-none');
    assert.equal(await page.locator('#import-add').isDisabled(), true, 'nothing to add');
    await page.locator('#import-operations tr[data-operation="addPet"] input').check();
    await page.locator('#import-operations tr[data-operation="findPetsByStatus"] input').check();
    // Keyboard: the checkbox takes focus and Space toggles it.
    await page.locator('#import-operations tr[data-operation="getPetById"] input').focus();
    await page.keyboard.press('Space');
    assert.equal(await page.locator('#import-operations input:checked').count(), 3);
    await page.locator('#import-add', { hasText: 'Add 3 tool(s)' }).waitFor();
    await page.fill(`#import-secret-${API_KEY_SECRET}`, 'pk-live-123');
    await shot(page, 'import-picked');
  });

  await step('add them: the tools are in the draft, the dialog is closed', async () => {
    await page.click('#import-add');
    await page.locator('#import-notice', { hasText: 'Added 3 tool(s)' }).waitFor();
    await page.locator('#import-notice', { hasText: 'SWAGGER_PETSTORE_PETSTORE_AUTH' }).waitFor();
    assert.equal(await dialog.count(), 0);
    for (const name of picked) await toolCard(name).waitFor();
    assert.equal(await page.locator('section.tool-card').count(), 4);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'import-tools', 'focus back on the button');
    await shot(page, 'tools-after-import');
  });

  await step('save the draft: the saved version has the tools and the secret exists', async () => {
    await page.click('#save-draft');
    await page.locator('#editor-notice', { hasText: 'Saved' }).waitFor();
    const agent = await call(h, 'GET', `/v1/agents/${agentId}`, { key });
    const version = await call(h, 'GET', `/v1/agents/${agentId}/versions/${agent.json.latest_version}`, { key });
    assert.equal(version.status, 200, JSON.stringify(version.json));
    const tools: Array<{ name: string; endpoint?: { headers?: Record<string, string> } }> = version.json.config.tools;
    assert.deepEqual(
      tools.map((t) => t.name),
      [SEED_TOOL, ...picked],
    );
    const getPet = tools.find((t) => t.name === 'getPetById');
    assert.equal(getPet?.endpoint?.headers?.api_key, `{{secrets.${API_KEY_SECRET}}}`);
    const secrets = await call(h, 'GET', '/v1/secrets', { key });
    const names = (secrets.json.data as Array<{ name: string }>).map((s) => s.name);
    assert.ok(names.includes(API_KEY_SECRET), `the API key is a tenant secret: ${names.join(', ')}`);
    // The OAuth token was left empty: it is not stored, and the notice said to set it.
    assert.ok(!names.includes('SWAGGER_PETSTORE_PETSTORE_AUTH'));
  });

  await step('Escape closes the dialog and gives the focus back', async () => {
    await page.click('#import-tools');
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'import-tools');
  });

  await step('a cURL command becomes a tool; a clashing name gets a suffix', async () => {
    for (const round of [1, 2]) {
      await page.click('#import-tools');
      await page.click('#tab-curl');
      await page.fill('#import-curl', CURL);
      await page.click('#import-read');
      await page.locator('#import-operations tbody tr').first().waitFor();
      assert.equal(await page.locator('#import-operations tbody tr').count(), 1);
      if (round === 1) await shot(page, 'import-curl');
      await page.click('#import-add');
      await page.locator('#import-notice', { hasText: 'Added 1 tool(s)' }).waitFor();
    }
    await page.locator('#import-notice', { hasText: 'Renamed because the name was taken' }).waitFor();
    const names = await page.locator('section.tool-card header strong').allTextContents();
    assert.equal(names.length, 6, names.join(', '));
    const [first, second] = names.slice(4);
    assert.ok(first && second === `${first}_2`, `renamed with a suffix: ${names.join(', ')}`);
    await shot(page, 'tools-after-curl');
  });

  await step('a private address is refused in plain words', async () => {
    await page.click('#import-tools');
    await page.check('#import-from-url');
    await page.fill('#import-url', 'http://127.0.0.1/openapi.json');
    await page.click('#import-read');
    await page.locator('#import-error', { hasText: 'private or internal network' }).waitFor();
    await page.locator('#import-error code', { hasText: 'egress_forbidden_address' }).waitFor();
    await shot(page, 'import-error-private-url');
  });

  await step('a broken document is refused with the validator’s lines; a file can be uploaded', async () => {
    await page.check('#import-from-text');
    await page.fill('#import-document', '{"openapi": "3.0.3", "info": {"title": "x"}}');
    await page.click('#import-read');
    await page.locator('#import-error', { hasText: 'not a valid OpenAPI or Swagger document' }).waitFor();
    await shot(page, 'import-error-invalid');
    // An uploaded file fills the box (and replaces what was typed).
    await page.setInputFiles('#import-file', {
      name: 'petstore.json',
      mimeType: 'application/json',
      buffer: Buffer.from(petstore),
    });
    await page.getByText('Loaded petstore.json.').waitFor();
    assert.equal(await page.inputValue('#import-document'), petstore);
    await page.click('#import-tools-dialog button[aria-label="Close"]');
    await dialog.waitFor({ state: 'detached' });
  });

  assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
}

browserSuite(
  'dashboard import e2e',
  'importing tools in the agent editor, in Chromium against the real API',
  'reads Petstore and a cURL command, adds the picked tools to the draft, saves them with the secret, and explains failures',
  main,
  cleanup,
  180_000,
);
