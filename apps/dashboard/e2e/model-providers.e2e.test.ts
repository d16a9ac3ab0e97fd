/**
 * The "Model providers" settings tab in Chromium, against the real API on a platform whose operator
 * configured NO model: the owner adds an OpenAI-compatible provider pointing at the fake LLM, tests
 * the connection (its models are listed), makes it the default with a model from the list, and then
 * the playground answers through it; the agent editor offers the listed models. A provider at a
 * private address fails its test in plain words, and the Chinese page is shown too.
 *
 *   pnpm vitest run apps/dashboard/e2e/model-providers.e2e.test.ts     (builds the dashboard first)
 *
 * Screenshots go to test-artifacts/dashboard-providers/.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions, FAKE_MODELS } from '@agentry/testkit';
import { chromium, type Page } from 'playwright-core';
import { call, type Harness, seedConfig, startHarness } from '../../api/src/test-support/harness.ts';
import { browserSuite, signedInOwner } from './browser-suite.ts';
import { buildDashboard } from './build-dashboard.ts';
import { walkthrough } from './walkthrough.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const shotsDir = join(repoRoot, 'test-artifacts/dashboard-providers');
const EMAIL = 'providers-owner@acme.example';
const PASSWORD = 'correct horse battery';
const TENANT_KEY = 'sk-tenant-e2e-5c1f';
const REPLY = 'Hello from your own model!';

const cleanup: Array<() => Promise<unknown> | unknown> = [];

/** A tenant, its owner (signed in through the API) and a published agent of the demo config. */
async function seed(h: Harness): Promise<{ key: string; agentId: string; session: string }> {
  const { key, session } = await signedInOwner(h, {
    tenant: 'Providers Co',
    email: EMAIL,
    password: PASSWORD,
    name: 'Pia',
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
  const shot = (page: Page, name: string) => walk.shot(page, name);
  await buildDashboard();
  // No model in the operator's environment: only the tenant's own provider can answer.
  const h = await startHarness('embedded', 'none', { env: { SECRETS_KEY: randomBytes(32).toString('base64') } });
  cleanup.push(() => h.close());
  const { key, agentId, session } = await seed(h);
  const base = `${h.platform.url}/dashboard/`;

  const browser = await chromium.launch(chromiumLaunchOptions());
  cleanup.push(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  await context.addCookies([{ name: 'agentry_session', value: session, url: h.platform.url }]);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  walk.page = page;
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const card = '#provider-openai_compatible-form';

  await step('before: the playground cannot answer (no model anywhere)', async () => {
    await page.goto(`${base}#/agents/${agentId}/playground`);
    await page.fill('#playground-input', 'Hi');
    await page.click('#playground-send');
    await page.locator('.banner-error', { hasText: 'model_not_configured' }).first().waitFor({ timeout: 30_000 });
    await shot(page, 'playground-not-configured');
  });

  await step('open Settings → Model providers: three providers, none configured', async () => {
    await page.goto(`${base}#/settings/providers`);
    await page.locator(card).waitFor();
    assert.equal(await page.locator('form[data-provider]').count(), 3);
    assert.equal(await page.locator('#provider-openai_compatible-status').textContent(), 'Not configured');
    assert.equal(await page.locator('#provider-openai_compatible-test').isDisabled(), true);
    await shot(page, 'providers-empty');
  });

  await step('add an OpenAI-compatible provider pointing at the fake LLM', async () => {
    await page.fill('#provider-openai_compatible-key', TENANT_KEY);
    await page.fill('#provider-openai_compatible-base-url', h.llm.openaiBaseUrl);
    await page.click('#provider-openai_compatible-save');
    await page.locator(`${card} .notice`, { hasText: 'Provider added' }).waitFor();
    await page.locator('#provider-openai_compatible-status', { hasText: /^Configured$/ }).waitFor();
    // The key is write-only: the box is empty again, and says one is set.
    assert.equal(await page.inputValue('#provider-openai_compatible-key'), '');
    assert.match((await page.getAttribute('#provider-openai_compatible-key', 'placeholder')) ?? '', /set/);
    assert.ok(!(await page.content()).includes(TENANT_KEY), 'the key is nowhere in the page');
  });

  await step('test the connection: the fake LLM’s models are listed', async () => {
    await page.click('#provider-openai_compatible-test');
    const ok = page.locator(`${card} [data-test-result="ok"]`);
    await ok.waitFor();
    const text = (await ok.textContent()) ?? '';
    assert.match(text, /Connected: 2 models/);
    for (const m of FAKE_MODELS) assert.ok(text.includes(m), text);
    const options = await page
      .locator('#provider-openai_compatible-models option')
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    assert.deepEqual(options, FAKE_MODELS);
    await shot(page, 'providers-test-ok');
  });

  await step('choose a default model from the list and make it the default provider', async () => {
    await page.fill('#provider-openai_compatible-model', FAKE_MODELS[1]!);
    await page.check('#provider-openai_compatible-default');
    await page.click('#provider-openai_compatible-save');
    await page.locator(`${card} .notice`, { hasText: 'Provider saved' }).waitFor();
    await page.locator(`${card} .badge`, { hasText: 'Default' }).waitFor();
    const stored = (await call(h, 'GET', '/v1/model-providers', { key })).json.data[0];
    assert.equal(stored.is_default, true);
    assert.equal(stored.default_model, FAKE_MODELS[1]);
    assert.equal(stored.api_key_set, true);
    await shot(page, 'providers-default');
  });

  await step('a provider at a private address fails its test in plain words', async () => {
    await page.fill('#provider-openai-key', 'sk-other');
    await page.fill('#provider-openai-base-url', 'http://10.0.0.7/v1');
    await page.click('#provider-openai-save');
    await page.locator('#provider-openai-form .notice', { hasText: 'Provider added' }).waitFor();
    await page.click('#provider-openai-test');
    const failed = page.locator('#provider-openai-form [data-test-result="failed"]');
    await failed.waitFor();
    assert.match((await failed.textContent()) ?? '', /egress_forbidden_address/);
    await page.locator('#provider-openai-form').scrollIntoViewIfNeeded();
    await shot(page, 'providers-test-failed');
    await page.click('#provider-openai-remove');
    await page.click('#provider-openai-remove-confirm');
    await page.locator('#provider-openai-status', { hasText: 'Not configured' }).waitFor();
  });

  await step('the agent editor offers the provider’s models', async () => {
    await page.goto(`${base}#/agents/${agentId}`);
    await page.locator('#model-name-options').waitFor({ state: 'attached' });
    await page.waitForFunction(() => document.querySelectorAll('#model-name-options option').length > 0);
    const options = await page
      .locator('#model-name-options option')
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    assert.deepEqual([...options].sort(), [...FAKE_MODELS].sort());
    await page.locator('#model-name-options').evaluate((el) => el.previousElementSibling?.scrollIntoView());
    await shot(page, 'editor-model-suggestions');
  });

  await step('the playground answers through the tenant’s provider', async () => {
    h.llm.enqueue({ type: 'reply', text: REPLY });
    await page.click('#tab-playground');
    await page.fill('#playground-input', 'Hi there');
    await page.click('#playground-send');
    await page.locator('.bubble-assistant', { hasText: REPLY }).first().waitFor({ timeout: 30_000 });
    const sent = h.llm.requests.at(-1)!;
    assert.equal(sent.body.model, FAKE_MODELS[1]);
    assert.equal(sent.headers.authorization, `Bearer ${TENANT_KEY}`);
    await shot(page, 'playground-answered');
  });

  await step('the page in Chinese', async () => {
    const zh = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'zh-CN' });
    await zh.addCookies([{ name: 'agentry_session', value: session, url: h.platform.url }]);
    const zhPage = await zh.newPage();
    await zhPage.goto(`${base}#/settings/providers`);
    await zhPage.locator(card).waitFor();
    await zhPage.locator('#provider-openai_compatible-status', { hasText: '已配置' }).waitFor();
    await shot(zhPage, 'providers-zh');
    await zh.close();
  });

  assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
}

browserSuite(
  'dashboard providers e2e',
  'the Model providers settings tab, in Chromium against the real API',
  'adds a provider at the fake LLM, tests it, makes it the default, and the playground answers through it',
  main,
  cleanup,
  240_000,
);
