/**
 * Browser test of the dashboard against the real API (embedded mode, fake model server, recording
 * tool endpoint), driving Debian's Chromium with playwright-core. The owner is created the way a
 * real one is (operator creates the tenant with `owner_email`, the invitation is accepted on the
 * dashboard's accept page) and then signs in with email + password; every screen is visited.
 *
 *   pnpm vitest run apps/dashboard/e2e      (part of `pnpm test`; builds the dashboard first)
 *
 * The SPA is served from dist/ by a tiny static server that forwards /v1 to the API, so it talks
 * to the API same-origin, as it will when the API serves /dashboard. Screenshots go to
 * test-artifacts/dashboard/ and their paths are printed.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_SCOPES } from '@agentry/contract';
import { chromiumLaunchOptions, demoResponder, type FakeRequest, type FakeTurn, firstLink } from '@agentry/testkit';
import { sql } from 'drizzle-orm';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { withSystemScope } from '../../../packages/db/src/index.ts';
import { invitationToken, linkToken } from '../../api/src/test-support/accounts.ts';
import { ADMIN_TOKEN, call, seedConfig, startHarness } from '../../api/src/test-support/harness.ts';
import { fieldId } from '../src/config/field-pointer.ts';
import { browserSuite } from './browser-suite.ts';
import { buildDashboard } from './build-dashboard.ts';
import { startStaticServer } from './static-server.ts';
import { walkthrough } from './walkthrough.ts';

const appDir = fileURLToPath(new URL('../', import.meta.url));
const widgetDir = fileURLToPath(new URL('../../widget/', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const shotsDir = join(repoRoot, 'test-artifacts/dashboard');
const TOOL = 'save_customer_information';
const EMAIL = 'owner@acme.example';
const PASSWORD = 'correct horse battery';

/** The demo model, with its text streamed slowly enough to watch it arrive. */
function streamingResponder(req: FakeRequest): FakeTurn {
  const turn = demoResponder(req);
  return turn.type === 'reply' && turn.text ? { ...turn, chunkSize: 4, chunkDelayMs: 60 } : turn;
}
const byPointer = (pointer: string) => `#${fieldId(pointer)}`;

const cleanup: Array<() => Promise<unknown> | unknown> = [];
const walk = walkthrough(shotsDir);
const { shot, step } = walk;

async function main(): Promise<void> {
  walk.start();
  await buildDashboard();
  await build({ root: widgetDir, configFile: join(widgetDir, 'vite.config.ts'), logLevel: 'warn' });

  // The same platform the API tests use: embedded mode, fake model, recording tool endpoint.
  const h = await startHarness('embedded', 'openai');
  cleanup.push(() => h.close());
  h.llm.setResponder(streamingResponder);
  const { platform, endpoint } = h;
  // The operator creates the tenant with its first owner; the owner accepts in the browser below.
  const tenant = await call(h, 'POST', '/v1/tenants', {
    key: ADMIN_TOKEN,
    body: { name: 'Acme Clinics', owner_email: EMAIL },
  });
  assert.equal(tenant.status, 201, JSON.stringify(tenant.json));
  const key: string = tenant.json.api_key.key;
  // The invitation link reaches the owner by mail (the harness's SMTP server), never the operator.
  const ownerToken = await invitationToken(h, EMAIL, tenant.json.owner_invitation);

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
  walk.log(`dashboard at ${base} (${served ? 'served by the API' : 'static server + /v1 proxy'})`);

  const browser = await chromium.launch(chromiumLaunchOptions());
  cleanup.push(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  walk.page = page;
  const consoleErrors: string[] = [];
  page.on('pageerror', (e) => consoleErrors.push(e.message));

  await step('accept the owner invitation on the accept page', async () => {
    await page.goto(`${base}#/accept-invitation?token=${encodeURIComponent(ownerToken)}`);
    await page.locator('#accept-password').waitFor();
    await page.fill('#accept-name', 'Olivia Owner');
    await page.fill('#accept-password', PASSWORD);
    await shot(page, 'accept-invitation');
    await page.click('#accept-submit');
    await page.getByRole('heading', { name: 'Agents' }).waitFor();
    assert.equal(await page.locator('#user-email').textContent(), EMAIL);
    await page.locator('#tenant-name', { hasText: 'Acme Clinics' }).waitFor();
  });

  await step('sign out, then sign in with email and password', async () => {
    await page.click('#logout');
    await page.locator('#login-email').waitFor();
    // The session is gone on the server too: the cookie no longer opens anything.
    await page.reload();
    await page.locator('#login-email').waitFor();
    await shot(page, 'login');
    await page.click('#key-login-toggle');
    await page.fill('#login-key', 'sk_not-a-real-key-123');
    await page.click('#login-key-submit');
    await page.getByText('did not accept this key').waitFor();
    await page.fill('#login-email', EMAIL);
    await page.fill('#login-password', 'wrong password!!');
    await page.click('#login-submit');
    await page.locator('#login-error', { hasText: 'Wrong email or password' }).waitFor();
    await page.fill('#login-password', PASSWORD);
    await page.click('#login-submit');
    await page.getByRole('heading', { name: 'Agents' }).waitFor();
    await shot(page, 'agents-empty');
  });

  await step('an unverified address is asked to confirm, and the mailed link confirms it', async () => {
    // As for an account older than mailed invitations: the owner's address loses its proof.
    await withSystemScope(h.platform.database.db, 'test: an unverified owner', (tx) =>
      tx.execute(sql`update users set email_verified_at = null where email = ${EMAIL}`),
    );
    await page.reload();
    await page.locator('#verify-email', { hasText: 'not confirmed' }).waitFor();
    await page.click('#verify-email-send');
    await page.locator('#verify-email', { hasText: 'on its way' }).waitFor();
    const token = linkToken(firstLink((await h.mail!.next(EMAIL)).text));
    await page.goto(`${base}#/confirm-email?token=${encodeURIComponent(token)}`);
    await page.locator('#confirm-status.banner-ok').waitFor();
    await page.goto(`${base}#/agents`);
    await page.getByRole('heading', { name: 'Agents' }).waitFor();
    assert.equal(await page.locator('#verify-email').count(), 0, 'a confirmed address shows no notice');
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

  const BLOCKED = 'Blocked addresses cannot book demos; tell the visitor to call us.';
  await step('add a permission rule with the simple condition builder', async () => {
    await page.click('#tab-tools');
    await page.click('#add-permission');
    // The tool box starts on the agent's first tool; * patterns can be typed instead.
    assert.equal(await page.locator(byPointer('/permissions/0/tool')).inputValue(), TOOL);
    await page.selectOption(byPointer('/permissions/0/action'), 'deny');
    await page.fill(byPointer('/permissions/0/message'), BLOCKED);
    await page.getByRole('button', { name: 'Add condition' }).click();
    assert.equal(await page.getByLabel('Argument of condition 1').inputValue(), 'email');
    await page.getByLabel('Comparison of condition 1').selectOption('=');
    await page.getByLabel('Value of condition 1').fill('blocked@example.com');
    await page.locator('#validation-state', { hasText: 'Valid' }).waitFor();
    await page.locator('#permissions-title').scrollIntoViewIfNeeded();
    await shot(page, 'editor-permissions');
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
    assert.deepEqual(json.permissions, [
      {
        tool: TOOL,
        action: 'deny',
        message: BLOCKED,
        when: { properties: { email: { const: 'blocked@example.com' } }, required: ['email'] },
      },
    ]);
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

  await step('chat in the playground: the reply streams in, then the tool call trace', async () => {
    await page.click('#tab-playground');
    await page.fill('#playground-input', 'Hi, my name is Ada Lovelace and my email is ada@example.com');
    await page.click('#playground-send');
    // Tokens appear while the run is still going…
    await page.locator('.live-run[data-status="running"] .bubble-streaming').waitFor({ timeout: 30_000 });
    await shot(page, 'playground-streaming');
    // …and the stored run's full trace replaces the live view when it ends.
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

  await step('roll back to version 1, confirming which version goes live', async () => {
    await page.click('#publish-v1');
    await page.locator('.confirm-question', { hasText: 'Make version 1 live?' }).waitFor();
    await page.click('#publish-v1-confirm');
    await page.locator('#versions-table tr[data-version="1"] .badge-ok').waitFor();
    await page.locator('#editor-notice', { hasText: 'The editor now shows version 1' }).waitFor();
    const agents = await fetch(`${platform.url}/v1/agents`, { headers: { authorization: `Bearer ${key}` } }).then((r) =>
      r.json(),
    );
    const booker = agents.data.find((a: { name: string }) => a.name === 'Demo Booker');
    assert.equal(booker.published_version, 1);
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

  await step('approve a tool in the playground while the run streams', async () => {
    const config = seedConfig();
    config.basic_settings.name = 'Refund Desk';
    config.tools[0].approval = 'always';
    config.tools[0].endpoint.url = `${endpoint.url}/refunds`;
    config.tools[0].endpoint.body = { email: '{{email}}' };
    const created = await call(h, 'POST', '/v1/agents', { key, body: { config, publish: true } });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const before = endpoint.requests.length;
    await page.goto(`${base}#/agents/${created.json.id}/playground`);
    await page.fill('#playground-input', 'Please refund me, my email is bob@example.com');
    await page.click('#playground-send');
    const card = page.locator(`.pending-card[data-tool="${TOOL}"]`);
    await card.waitFor({ timeout: 30_000 });
    assert.match((await card.textContent()) ?? '', /bob@example\.com/);
    assert.equal(endpoint.requests.length, before, 'nothing is sent before the approval');
    await shot(page, 'playground-approval');
    await card.getByRole('button', { name: 'Approve' }).click();
    // The same stream carries the rest of the run: the approved call runs, then the reply streams.
    await page.locator('.trace .tool-call', { hasText: TOOL }).waitFor({ timeout: 30_000 });
    await page.locator('.bubble-assistant', { hasText: 'The tool answered' }).waitFor();
    assert.equal(endpoint.requests.length, before + 1);
    assert.deepEqual(endpoint.requests.at(-1)?.json, { email: 'bob@example.com' });
    await shot(page, 'playground-approved');
  });

  await step('search and filter conversations', async () => {
    await page.click('#nav-conversations');
    await page.locator('#conversations-table tbody tr').first().waitFor();
    await page.fill('#filter-q', 'bob@example.com');
    await page.click('#filter-search');
    await page.waitForFunction(() => document.querySelectorAll('#conversations-table tbody tr').length === 1);
    await page.locator('#conversations-table .badge-ok', { hasText: 'completed' }).waitFor();
    assert.match(page.url(), /q=bob%40example\.com/);
    await shot(page, 'conversations-filtered');
    await page.selectOption('#filter-status', 'failed');
    await page.getByText('No conversation matches these filters.').waitFor();
    await page.click('#filter-clear');
    assert.equal(await page.inputValue('#filter-status'), '', 'clear resets the filters at once');
    await page.selectOption('#filter-error', 'false');
    await page.waitForFunction(() => document.querySelectorAll('#conversations-table tbody tr').length >= 2);
  });

  await step('see usage charts per day and per agent', async () => {
    await page.click('#nav-usage');
    await page.locator('#chart-runs svg rect').first().waitFor();
    await page.locator('#chart-tokens svg rect').first().waitFor();
    await page.locator('#chart-errors svg circle').first().waitFor();
    assert.equal(await page.locator('#usage-agents tbody tr').count(), 2);
    const totals = (await page.locator('#usage-totals').textContent()) ?? '';
    assert.match(totals, /Runs\s*2/);
    await shot(page, 'usage');
  });

  await step('create a scoped secret key, see it once, and revoke it', async () => {
    await page.click('#nav-settings');
    await page.locator('#new-key-form').waitFor();
    await page.fill('#key-name', 'CI read-only');
    await page.uncheck('#key-all-scopes');
    const offered = await page
      .locator('.scopes-table input[type=checkbox]')
      .evaluateAll((boxes) => boxes.map((b) => b.getAttribute('aria-label')));
    assert.deepEqual(offered, ALL_SCOPES.slice(1), 'the panel offers every scope the API knows');
    await page.check('#scope-agents-read');
    await page.click('#create-key');
    const value = await page.locator('#created-key-value').inputValue();
    assert.match(value, /^sk_/);
    const agentsWith = (k: string, method = 'GET') =>
      fetch(`${platform.url}/v1/agents`, {
        method,
        headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: '{}' } : {}),
      }).then((r) => r.status);
    assert.equal(await agentsWith(value), 200);
    assert.equal(await agentsWith(value, 'POST'), 403, 'only agents:read was granted');
    const row = page.locator('#keys-table tr', { hasText: 'CI read-only' });
    await row.locator('.chip', { hasText: 'agents:read' }).waitFor();
    await shot(page, 'settings-keys');
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    await row.waitFor({ state: 'detached' });
    assert.equal(await agentsWith(value), 401);
  });

  await step('set a write-only secret', async () => {
    await page.click('#tab-secrets');
    await page.fill('#secret-name', 'CRM_TOKEN');
    await page.fill('#secret-value', 'super-secret-value');
    await page.click('#secret-save');
    await page.locator('#secrets-table tr[data-secret="CRM_TOKEN"]').waitFor();
    assert.equal(await page.locator('#secret-value').inputValue(), '');
    assert.ok(!((await page.content()) ?? '').includes('super-secret-value'), 'the value is never shown');
    await shot(page, 'settings-secrets');
  });

  await step('invite a member, who accepts and shows up with the role', async () => {
    await page.click('#tab-members');
    await page.locator('#members-table tr', { hasText: EMAIL }).waitFor();
    await page.fill('#invite-email', 'eddie@acme.example');
    await page.selectOption('#invite-role', 'editor');
    await page.click('#invite-submit');
    // The owner is told the invitation went out; the link itself only reaches Eddie's mailbox.
    await page.locator('#invitation-sent', { hasText: 'Invitation sent to eddie@acme.example' }).waitFor();
    assert.equal(await page.locator('#invitation-url').count(), 0);
    await page.locator('#invitations-table tr[data-invitation="eddie@acme.example"]').waitFor();
    await shot(page, 'settings-members');
    const token = await invitationToken(h, 'eddie@acme.example', {});
    const other = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const eddie = await other.newPage();
    await eddie.goto(`${base}#/accept-invitation?token=${encodeURIComponent(token)}`);
    await eddie.fill('#accept-password', 'eddie-password-1');
    await eddie.click('#accept-submit');
    await eddie.getByRole('heading', { name: 'Agents' }).waitFor();
    await eddie.locator('#tenant-name', { hasText: 'Editor' }).waitFor();
    await other.close();
    await page.reload();
    await page.locator('#members-table tr[data-member="eddie@acme.example"]').waitFor();
    assert.equal(await page.locator('#invitations-table tr[data-invitation="eddie@acme.example"]').count(), 0);
  });

  await step('a forgotten password is reset through the mailed link', async () => {
    const other = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const eddie = await other.newPage();
    await eddie.goto(base);
    await eddie.click('#forgot-password-link');
    await eddie.fill('#forgot-email', 'eddie@acme.example');
    await eddie.click('#forgot-submit');
    await eddie.locator('#forgot-sent').waitFor();
    const token = linkToken(firstLink((await h.mail!.next('eddie@acme.example')).text));
    await eddie.goto(`${base}#/reset-password?token=${encodeURIComponent(token)}`);
    await eddie.fill('#reset-password', 'eddie-new-password');
    await shot(eddie, 'reset-password');
    await eddie.click('#reset-submit');
    await eddie.getByRole('heading', { name: 'Agents' }).waitFor();
    await other.close();
  });

  await step('theme the widget (saved to the draft), allow this origin, and preview the real widget', async () => {
    await page.click('#tab-widget');
    await page.locator('#widget-agent').waitFor();
    await page.selectOption('#widget-agent', { label: 'Demo Booker' });
    await page.fill('#widget-title', 'Acme help');
    await page.fill('#widget-color-primary', '#0a7d5a');
    await page.fill('#widget-greeting', 'Hi! Ask me about a demo.');
    await page.click('#widget-save');
    const notice = await page.locator('#widget-notice', { hasText: 'Saved as draft version' }).textContent();
    // The look is a draft like any change; publishing it is the editor's (here: the API's) job.
    const draft = Number(/version (\d+)/.exec(notice ?? '')?.[1]);
    const agents = await call(h, 'GET', '/v1/agents', { key });
    const booker = agents.json.data.find((a: { name: string }) => a.name === 'Demo Booker');
    assert.equal(booker.latest_version, draft);
    assert.notEqual(booker.published_version, draft, 'saving the look publishes nothing');
    const published = await call(h, 'POST', `/v1/agents/${booker.id}/versions/${draft}/publish`, { key });
    assert.equal(published.status, 200, JSON.stringify(published.json));
    assert.equal(await page.locator('#widget-origins').inputValue(), new URL(base).origin);
    await page.click('#widget-create-key');
    await page.locator('#widget-key-value').waitFor();
    const frame = page.frameLocator('#widget-preview');
    await frame.locator('.launcher').click({ timeout: 20_000 });
    await frame.locator('#title', { hasText: 'Acme help' }).waitFor();
    await frame.locator('.greeting', { hasText: 'Ask me about a demo' }).waitFor();
    const snippet = await page.locator('#widget-snippet').inputValue();
    assert.match(
      snippet,
      /<script src="http:\/\/[^"]+\/widget\.js" data-key="pk_[^"]+" data-agent="[^"]+" async><\/script>/,
    );
    await shot(page, 'settings-widget');
  });

  await step('switch between the tenants the user belongs to', async () => {
    const second = await call(h, 'POST', '/v1/tenants', {
      key: ADMIN_TOKEN,
      body: { name: 'Second Co', owner_email: EMAIL },
    });
    // An existing user accepts with their current password.
    const accepted = await call(h, 'POST', '/v1/auth/accept-invitation', {
      body: { token: await invitationToken(h, EMAIL, second.json.owner_invitation), password: PASSWORD },
    });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.json));
    await page.goto(`${base}#/agents`);
    await page.reload();
    await page.locator('#tenant').waitFor();
    await page.selectOption('#tenant', { label: 'Second Co (Owner)' });
    await page.locator('p.empty', { hasText: 'No agents yet' }).waitFor();
    await shot(page, 'tenant-switch');
    await page.selectOption('#tenant', { label: 'Acme Clinics (Owner)' });
    await page.locator('#agents-table', { hasText: 'Demo Booker' }).waitFor();
  });

  await step('switch the UI to Chinese', async () => {
    await page.goto(`${base}#/agents`);
    await page.selectOption('#language', 'zh');
    await page.getByRole('heading', { name: '智能体' }).waitFor();
    await page.locator('#agents-table', { hasText: 'Demo Booker' }).waitFor();
    await shot(page, 'agents-zh');
    await page.click('#nav-usage');
    await page.getByRole('heading', { name: '用量' }).waitFor();
    await page.locator('#chart-runs svg rect').first().waitFor();
    await shot(page, 'usage-zh');
  });

  assert.deepEqual(consoleErrors, [], 'no uncaught errors in the page');
}

browserSuite(
  'dashboard e2e',
  'the dashboard in Chromium, against the real API',
  'signs in, builds the demo-booking agent through the form, tests its tool, chats, publishes, rolls back, and runs the settings, usage and approval screens',
  main,
  cleanup,
  360_000,
);
