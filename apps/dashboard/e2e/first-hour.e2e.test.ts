/**
 * A newcomer's first hour (issue 24) in Chromium, against the real API (which serves the built
 * dashboard): the widget look editor shows the colours the widget will use and saves the look to the
 * draft; publishable keys can be shown again (a key from before they were kept says so), secret keys
 * cannot; the conversation list says what each conversation was about and who the visitor is; and
 * in Chinese the tool editor names parameter types in Chinese, API keys (密钥) and tenant secrets
 * (机密) are distinct terms, and copy buttons stay one line high, at a phone's width too.
 *
 *   pnpm vitest run apps/dashboard/e2e/first-hour.e2e.test.ts     (builds the dashboard first)
 *
 * Screenshots go to test-artifacts/dashboard-first-hour/.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WIDGET_DEFAULT_COLORS } from '@agentry/contract';
import { chromiumLaunchOptions } from '@agentry/testkit';
import { sql } from 'drizzle-orm';
import { chromium, type Locator, type Page } from 'playwright-core';
import { withSystemScope } from '../../../packages/db/src/index.ts';
import { call, type Harness, seedConfig, startHarness } from '../../api/src/test-support/harness.ts';
import { browserSuite, signedInOwner } from './browser-suite.ts';
import { buildDashboard } from './build-dashboard.ts';
import { walkthrough } from './walkthrough.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const shotsDir = join(repoRoot, 'test-artifacts/dashboard-first-hour');
const EMAIL = 'newcomer@acme.example';
const PASSWORD = 'correct horse battery';
const FIRST_MESSAGE = 'Can I book a demo for next Tuesday afternoon? We are a team of twelve.';

const cleanup: Array<() => Promise<unknown> | unknown> = [];

interface Seeded {
  key: string;
  agentId: string;
  session: string;
  publishable: { id: string; prefix: string; key: string };
  old: { prefix: string };
  secret: { prefix: string };
}

/** A tenant with its signed-in owner, an agent, keys (one publishable key "from before 0020"), a secret and two conversations. */
async function seed(h: Harness): Promise<Seeded> {
  const { key, session } = await signedInOwner(h, { tenant: 'Acme', email: EMAIL, password: PASSWORD, name: 'Nia' });
  const agent = await call(h, 'POST', '/v1/agents', { key, body: { config: seedConfig(), publish: true } });
  assert.equal(agent.status, 201, JSON.stringify(agent.json));
  const agentId: string = agent.json.id;
  const newKey = (body: object) => call(h, 'POST', '/v1/api-keys', { key, body }).then((r) => r.json);
  const publishable = await newKey({
    kind: 'publishable',
    agents: [agentId],
    allowed_origins: ['https://shop.example', new URL(h.platform.url).origin],
  });
  const old = await newKey({ kind: 'publishable', agents: [agentId], allowed_origins: ['https://old.example'] });
  const secret = await newKey({ kind: 'secret', name: 'server' });
  await withSystemScope(h.platform.database.db, 'test: a publishable key from before 0020', (tx) =>
    tx.execute(sql`update api_keys set publishable_key = null where id = ${old.id}`),
  );
  await call(h, 'PUT', '/v1/secrets/CRM_TOKEN', { key, body: { value: 'crm-123' } });
  h.llm.enqueue({ type: 'reply', text: 'Sure!' }, { type: 'reply', text: 'Hello' });
  const known = await call(h, 'POST', '/v1/conversations', {
    key,
    body: { agent_id: agentId, context: { userId: 'customer-42' } },
  });
  await call(h, 'POST', `/v1/conversations/${known.json.id}/messages`, { key, body: { content: FIRST_MESSAGE } });
  const anonymous = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agentId } });
  await call(h, 'POST', `/v1/conversations/${anonymous.json.id}/messages`, { key, body: { content: 'hi' } });
  return { key, agentId, session, publishable, old, secret };
}

/** Whether a button's label fits on one line: its content box is no taller than one line of its text. */
async function oneLine(button: Locator): Promise<boolean> {
  return button.evaluate((el) => {
    const style = getComputedStyle(el);
    const px = (v: string) => Number.parseFloat(v) || 0;
    const content =
      el.getBoundingClientRect().height -
      px(style.paddingTop) -
      px(style.paddingBottom) -
      px(style.borderTopWidth) -
      px(style.borderBottomWidth);
    const line = style.lineHeight === 'normal' ? px(style.fontSize) * 1.4 : px(style.lineHeight);
    return content <= line * 1.5;
  });
}

async function main(): Promise<void> {
  const walk = walkthrough(shotsDir);
  walk.start();
  const { step } = walk;
  const shot = (page: Page, name: string) => walk.shot(page, name, { fullPage: false });
  await buildDashboard();
  const h = await startHarness('embedded', 'openai');
  cleanup.push(() => h.close());
  const seeded = await seed(h);
  const { key, agentId } = seeded;
  const base = `${h.platform.url}/dashboard/`;

  const browser = await chromium.launch(chromiumLaunchOptions());
  cleanup.push(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  await context.addCookies([{ name: 'agentry_session', value: seeded.session, url: h.platform.url }]);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  walk.page = page;
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));

  await step('the look editor shows the widget’s default colours and saves the look to the draft', async () => {
    await page.goto(`${base}#/settings/widget`);
    await page.locator('#widget-theme-form').waitFor();
    const picker = (k: string) => page.locator(`#widget-color-${k}`).locator('xpath=..').locator('input[type=color]');
    for (const k of ['primary', 'background', 'text'] as const) {
      assert.equal(await picker(k).inputValue(), WIDGET_DEFAULT_COLORS[k], `${k} picker shows the default`);
    }
    assert.equal(await page.getAttribute('#widget-color-primary', 'placeholder'), 'default (#2563eb)');
    // The kept key allows this dashboard's origin, so the preview uses it without pasting.
    assert.equal(await page.inputValue('#widget-preview-key'), seeded.publishable.key);
    await page.fill('#widget-color-primary', '#0a7');
    assert.equal(await picker('primary').inputValue(), '#00aa77', 'a #rgb colour shows in the picker');
    await page.fill('#widget-title', 'Acme help');
    await page.click('#widget-save');
    await page.locator('#widget-notice', { hasText: 'Saved as draft version 2' }).waitFor();
    const agent = await call(h, 'GET', `/v1/agents/${agentId}`, { key });
    assert.deepEqual([agent.json.latest_version, agent.json.published_version], [2, 1], 'nothing was published');
    const draft = await call(h, 'GET', `/v1/agents/${agentId}/versions/2`, { key });
    assert.equal(draft.json.config.widget.title, 'Acme help');
    assert.match(
      (await page.locator('#widget-open-editor').getAttribute('href')) ?? '',
      new RegExp(`#/agents/${agentId}/playground$`),
    );
    await shot(page, 'widget-look-draft');
  });

  await step('publishable keys can be shown again; an old one says why not; secret keys cannot', async () => {
    await page.goto(`${base}#/settings/keys`);
    await page.locator('#keys-table').waitFor();
    assert.equal(await page.locator(`#show-${seeded.secret.prefix}`).count(), 0, 'no Show for a secret key');
    await page.click(`#show-${seeded.publishable.prefix}`);
    assert.equal(await page.inputValue(`#key-value-${seeded.publishable.prefix}`), seeded.publishable.key);
    await page.click(`#show-${seeded.old.prefix}`);
    await page.locator(`#key-value-${seeded.old.prefix}-not-kept`, { hasText: 'cannot be shown again' }).waitFor();
    await page.click(`#show-${seeded.publishable.prefix}`);
    await shot(page, 'keys-show-again');
  });

  await step('the conversation list shows the first user message and the visitor', async () => {
    await page.goto(`${base}#/conversations`);
    const known = page.locator('#conversations-table tr', { hasText: 'customer-42' });
    await known.waitFor();
    await known.locator('.conversation-preview', { hasText: FIRST_MESSAGE }).waitFor();
    const anonymous = page.locator('#conversations-table tr', { hasText: 'anonymous' });
    assert.equal(await anonymous.count(), 1);
    assert.equal((await anonymous.locator('.conversation-preview').textContent())?.trim(), 'hi');
    await shot(page, 'conversations-preview');
  });

  await step('in Chinese, the tool editor names parameter types in Chinese', async () => {
    await page.goto(`${base}#/agents/${agentId}/tools`);
    await page.selectOption('#language', 'zh');
    const typeSelect = page.locator('.param-main select').first();
    await typeSelect.waitFor();
    const options = await typeSelect.locator('option').allTextContents();
    assert.deepEqual(options, ['字符串', '数字', '整数', '布尔值', '数组', '对象']);
    await typeSelect.scrollIntoViewIfNeeded();
    await shot(page, 'tools-zh');
  });

  await step(
    'in Chinese, API keys (密钥) and secrets (机密) are distinct, and the copy button is one line',
    async () => {
      await page.goto(`${base}#/settings/keys`);
      await page.locator('#keys-table').waitFor();
      assert.equal((await page.locator('#tab-keys').textContent())?.trim(), 'API 密钥');
      assert.equal((await page.locator('#tab-secrets').textContent())?.trim(), '机密');
      await page.click(`#show-${seeded.publishable.prefix}`);
      const copy = page.locator(`#key-value-${seeded.publishable.prefix}-copy`);
      assert.equal((await copy.textContent())?.trim(), '复制');
      assert.ok(await oneLine(copy), 'the copy button is one line high');
      await shot(page, 'keys-zh');
      await page.click('#tab-secrets');
      await page.locator('#panel-secrets', { hasText: 'CRM_TOKEN' }).waitFor();
      const secretsText = (await page.locator('#panel-secrets').textContent()) ?? '';
      assert.match(secretsText, /机密/);
      assert.doesNotMatch(secretsText, /密钥/, 'the secrets page never calls a secret an API key');
      await shot(page, 'secrets-zh');
    },
  );

  await step('at a phone’s width the buttons do not wrap either', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.click('#tab-keys');
    await page.locator('#keys-table').waitFor();
    await page.click(`#show-${seeded.publishable.prefix}`);
    const copy = page.locator(`#key-value-${seeded.publishable.prefix}-copy`);
    await copy.scrollIntoViewIfNeeded();
    assert.ok(await oneLine(copy), 'the copy button is one line high at 390 px');
    for (const button of await page.locator('#panel-keys button').all()) {
      if (await button.isVisible()) assert.ok(await oneLine(button), `"${await button.textContent()}" is one line`);
    }
    await shot(page, 'keys-zh-phone');
  });

  assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
}

browserSuite(
  'dashboard first-hour e2e',
  'a newcomer’s first hour in the dashboard, in Chromium against the real API',
  'shows effective colours, saves the look to the draft, shows publishable keys again, previews conversations, and reads well in Chinese',
  main,
  cleanup,
  240_000,
);
