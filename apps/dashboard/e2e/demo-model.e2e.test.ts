/**
 * A first start with no model anywhere, in Chromium: the dashboard says on every page that the
 * built-in demo model answers; in the playground the demo agent's message with an email address
 * calls its tool, which reaches the platform's own demo endpoint, and the contact it saved is listed.
 *
 *   pnpm vitest run apps/dashboard/e2e/demo-model.e2e.test.ts     (builds the dashboard first)
 *
 * Screenshots go to test-artifacts/dashboard-demo/.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions } from '@agentry/testkit';
import { chromium } from 'playwright-core';
import { demoAgentConfig } from '../../api/src/embedded/demo-seed.ts';
import { call, startHarness } from '../../api/src/test-support/harness.ts';
import { browserSuite, signedInOwner } from './browser-suite.ts';
import { buildDashboard } from './build-dashboard.ts';
import { walkthrough } from './walkthrough.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const shotsDir = join(repoRoot, 'test-artifacts/dashboard-demo');
const EMAIL = 'demo-owner@acme.example';
const PASSWORD = 'correct horse battery';

const cleanup: Array<() => Promise<unknown> | unknown> = [];

async function main(): Promise<void> {
  const walk = walkthrough(shotsDir);
  walk.start();
  await buildDashboard();
  // The embedded mode as a newcomer starts it: no model variables, the demo model on, its tools
  // allowed to reach this machine (the demo endpoint).
  const h = await startHarness('embedded', 'none', { env: { DEMO_MODEL: 'true', EGRESS_ALLOW_LOOPBACK: 'true' } });
  cleanup.push(() => h.close());
  const { key, session } = await signedInOwner(h, { tenant: 'Acme', email: EMAIL, password: PASSWORD, name: 'Dee' });
  const agent = await call(h, 'POST', '/v1/agents', { key, body: { config: demoAgentConfig(h.platform.url) } });
  assert.equal(agent.status, 201, JSON.stringify(agent.json));
  const browser = await chromium.launch(chromiumLaunchOptions());
  cleanup.push(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  await context.addCookies([{ name: 'agentry_session', value: session, url: h.platform.url }]);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  walk.page = page;
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));

  await walk.step('every page says the demo model answers', async () => {
    await page.goto(`${h.platform.url}/dashboard/#/agents`);
    await page.locator('#demo-model', { hasText: 'built-in demo model' }).waitFor();
    await walk.shot(page, 'demo-notice');
  });

  await walk.step(
    'the playground: an email address makes the demo model call the tool, and it says it is the demo',
    async () => {
      await page.goto(`${h.platform.url}/dashboard/#/agents/${agent.json.id}/playground`);
      await page.fill('#playground-input', 'I want to schedule a demo, my email is kim.lee@example.com');
      await page.locator('#playground-send:not([disabled])').click();
      const answer = page.locator('.bubble-assistant', { hasText: 'Done: I called save_customer_information' }).first();
      await answer.waitFor({ timeout: 30_000 });
      assert.match((await answer.textContent()) ?? '', /built-in demo model/);
      await walk.shot(page, 'demo-answer');
    },
  );

  await walk.step('the contact the tool saved is listed', async () => {
    await page.reload();
    const panel = page.locator('#demo-contacts');
    await panel.locator('summary', { hasText: '1 contact' }).click();
    await panel.locator('li', { hasText: 'kim.lee@example.com' }).waitFor();
    await walk.shot(page, 'demo-contacts');
  });

  assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
}

browserSuite(
  'dashboard demo e2e',
  'the first start with no model, in Chromium against the real API',
  'labels the demo model, calls the demo tool from the playground and lists the saved contact',
  main,
  cleanup,
  180_000,
);
