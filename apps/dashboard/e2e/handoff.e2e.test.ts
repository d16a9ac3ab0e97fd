/**
 * Issue 21's acceptance in Chromium, two browser contexts against the real API (embedded mode,
 * fake model at the wire): a visitor on a foreign-origin page asks for a person in the widget →
 * the member's inbox shows it within 1 s with the summary → the member claims and replies → the
 * visitor sees the reply live → the visitor answers → the member sees it live → release → the
 * next visitor message is answered by the model, which sees the human part of the transcript.
 * The fake model's request count does not move while a person holds the conversation. Before
 * that: nobody available → the configured message; outside business hours → the same. A viewer
 * reads the conversation without the buttons to take it.
 *
 *   pnpm vitest run apps/dashboard/e2e/handoff.e2e.test.ts   (builds the dashboard and the widget first)
 *
 * Screenshots go to test-artifacts/dashboard-inbox/.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions, type FakeRequest, type FakeTurn } from '@agentry/testkit';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { build } from 'vite';
import { invitationToken } from '../../api/src/test-support/accounts.ts';
import { call, type Harness, startHarness } from '../../api/src/test-support/harness.ts';
import { fieldId } from '../src/config/field-pointer.ts';
import { browserSuite, signedInOwner } from './browser-suite.ts';
import { buildDashboard } from './build-dashboard.ts';
import { walkthrough } from './walkthrough.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const shotsDir = join(repoRoot, 'test-artifacts/dashboard-inbox');
const widgetDir = join(repoRoot, 'apps/widget');
const OWNER = { tenant: 'Bluebird', email: 'ana@bluebird.example', password: 'correct horse battery', name: 'Ana' };
const VIEWER = { email: 'vic@bluebird.example', password: 'another horse battery', name: 'Vic' };
const WAITING = 'A teammate will be with you in a moment.';
const UNAVAILABLE = 'Sorry, nobody from the team is around right now; I will keep helping.';
const HUMAN_REPLY = 'Hi, I am Ana from the team. I can refund order 1234 for you.';
const VISITOR_ANSWER = 'Yes please, refund order 1234.';
const NOTE = 'VIP customer: refund approved by Sam.';
const RELEASE_NOTE = 'Refund of order 1234 is done; confirm it if asked.';
/** The inbox row must show within this of the visitor's click (issue 21: "within 1 s"). */
const INBOX_BOUND_MS = 1000;

const cleanup: Array<() => Promise<unknown> | unknown> = [];

/** The scripted model: it says whether it sees the person's reply (and the release note) in its input. */
function responder(req: FakeRequest): FakeTurn {
  const input = JSON.stringify(req.body.messages ?? req.body.input ?? req.body);
  if (input.includes('refund order 1234') && input.includes('Thanks')) {
    const sawPerson = input.includes(HUMAN_REPLY);
    const sawNote = input.includes(RELEASE_NOTE);
    return {
      type: 'reply',
      text: sawPerson
        ? `I see Ana from our team refunded order 1234${sawNote ? ' (noted)' : ''}. Anything else?`
        : 'I do not know what happened before.',
      chunkSize: 4,
      chunkDelayMs: 10,
    };
  }
  return { type: 'reply', text: 'Hello! I am the Bluebird assistant. How can I help?', chunkSize: 4, chunkDelayMs: 10 };
}

function agentConfig(origin: string) {
  return {
    basic_settings: { name: 'Bluebird helper', description: 'Helps Bluebird shoppers', language: 'English' },
    handoff: {
      enabled: true,
      visitor_button: true,
      waiting_message: WAITING,
      unavailable_message: UNAVAILABLE,
    },
    widget: { title: 'Bluebird Help', allowed_origins: [origin] },
  };
}

/** The shop's page on its own origin, embedding the widget from the API's origin. */
async function startShopPage(scriptTag: () => string) {
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/favicon')) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bluebird shop</title></head>
<body style="font-family: Georgia, serif; background: #f5efe6"><h1>Bluebird shop</h1><p>Order 1234: a blue kettle.</p>${scriptTag()}</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** A viewer of the tenant, invited by the owner's key, signed in: their session cookie. */
async function signedInViewer(h: Harness, key: string): Promise<string> {
  const invited = await call(h, 'POST', '/v1/invitations', { key, body: { email: VIEWER.email, role: 'viewer' } });
  assert.equal(invited.status, 201, JSON.stringify(invited.json));
  const token = await invitationToken(h, VIEWER.email, invited.json);
  const accepted = await call(h, 'POST', '/v1/auth/accept-invitation', {
    body: { token, password: VIEWER.password, name: VIEWER.name },
  });
  assert.equal(accepted.status, 200, JSON.stringify(accepted.json));
  const login = await fetch(`${h.platform.url}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: VIEWER.email, password: VIEWER.password }),
  });
  const session = /agentry_session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
  assert.ok(session, 'the viewer is signed in');
  return session;
}

async function memberContext(
  browser: Awaited<ReturnType<typeof chromium.launch>>,
  h: Harness,
  session: string,
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US' });
  await context.addCookies([{ name: 'agentry_session', value: session, url: h.platform.url }]);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, errors };
}

async function main(): Promise<void> {
  const walk = walkthrough(shotsDir);
  walk.start();
  const { step } = walk;
  await Promise.all([
    buildDashboard(),
    build({ root: widgetDir, configFile: join(widgetDir, 'vite.config.ts'), logLevel: 'warn' }),
  ]);
  const h = await startHarness('embedded', 'openai');
  cleanup.push(() => h.close());
  h.llm.setResponder(responder);
  const { key, session } = await signedInOwner(h, OWNER);

  let pk = '';
  let agentId = '';
  const shop = await startShopPage(
    () => `<script src="${h.platform.url}/widget.js" data-key="${pk}" data-agent="${agentId}" async></script>`,
  );
  cleanup.push(() => shop.close());
  const agent = await call(h, 'POST', '/v1/agents', { key, body: { config: agentConfig(shop.url), publish: true } });
  assert.equal(agent.status, 201, JSON.stringify(agent.json));
  agentId = agent.json.id;
  const publishable = await call(h, 'POST', '/v1/api-keys', {
    key,
    body: { kind: 'publishable', name: 'shop', agents: [agentId], allowed_origins: [shop.url] },
  });
  assert.equal(publishable.status, 201, JSON.stringify(publishable.json));
  pk = publishable.json.key;
  const viewerSession = await signedInViewer(h, key);

  const browser = await chromium.launch(chromiumLaunchOptions());
  cleanup.push(() => browser.close());
  const member = await memberContext(browser, h, session);
  const inbox = member.page;
  const visitorContext = await browser.newContext({ viewport: { width: 1100, height: 820 }, locale: 'en-US' });
  const visitor = await visitorContext.newPage();
  visitor.setDefaultTimeout(15_000);
  const visitorErrors: string[] = [];
  visitor.on('pageerror', (e) => visitorErrors.push(e.message));
  walk.page = inbox;
  const base = `${h.platform.url}/dashboard/`;
  const talkButton = visitor.locator('.handoff-btn');
  const visitorSend = async (text: string) => {
    await visitor.locator('#input').fill(text);
    await visitor.locator('#input').press('Enter');
  };
  let conversationId = '';

  await step('the agent editor shows the handoff settings', async () => {
    await inbox.goto(`${base}#/agents/${agentId}`);
    await inbox.locator('#handoff-title').waitFor();
    assert.equal(await inbox.locator(`#${fieldId('/handoff/enabled')}`).isChecked(), true);
    assert.equal(await inbox.locator(`#${fieldId('/handoff/visitor_button')}`).isChecked(), true);
    assert.equal(await inbox.inputValue(`#${fieldId('/handoff/waiting_message')}`), WAITING);
    await inbox.locator('#handoff-title').scrollIntoViewIfNeeded();
    await walk.shot(inbox, 'editor-handoff-settings', { fullPage: false });
  });

  await step('the member opens the inbox: empty, live, away', async () => {
    await inbox.goto(`${base}#/inbox`);
    await inbox.locator('#inbox-live[data-live="true"]').waitFor();
    await inbox.locator('#inbox-empty').waitFor();
    await inbox.locator('#my-availability', { hasText: 'Away' }).waitFor();
  });

  await step('a visitor on the shop page chats with the model', async () => {
    await visitor.goto(shop.url);
    await visitor.locator('.launcher').click();
    await talkButton.waitFor();
    await visitorSend('Hello, I have a question about my order');
    await visitor.locator('.msg.assistant:not(.greeting)', { hasText: 'Bluebird assistant' }).waitFor();
    await visitor.locator('.log[aria-busy="false"]').waitFor();
    conversationId = await visitor.evaluate(
      (agent) => JSON.parse(localStorage.getItem(`agentry:${agent}`) ?? '{}').conversationId,
      agentId,
    );
    assert.ok(conversationId, 'the widget saved its conversation');
  });

  await step('nobody available: the visitor gets the configured message and the model carries on', async () => {
    await talkButton.click();
    await visitor.locator('.info', { hasText: UNAVAILABLE }).waitFor();
    assert.equal(await talkButton.isVisible(), true, 'the button stays: the bot still answers');
    await walk.shot(visitor, 'visitor-nobody-available', { fullPage: false });
    assert.equal(await inbox.locator('#inbox-waiting li').count(), 0);
  });

  await step('outside business hours: the same message, even with the member available', async () => {
    await inbox.locator('#toggle-availability').click();
    await inbox.locator('#my-availability', { hasText: 'Available' }).waitFor();
    await inbox.goto(`${base}#/settings/handoff`);
    await inbox.locator('#hours-form[data-loaded="true"]').waitFor();
    await inbox.locator('#hours-enabled').check();
    await inbox.selectOption('#hours-zone', 'UTC');
    await inbox.locator('#hours-add').click();
    // One interval on tomorrow (UTC): now is outside it.
    const tomorrow = String((new Date().getUTCDay() + 1) % 7);
    await inbox.locator('.hours-table select').first().selectOption(tomorrow);
    await inbox.locator('#hours-save').click();
    await inbox.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await walk.shot(inbox, 'settings-business-hours', { fullPage: true });
    const availability = await call(h, 'GET', '/v1/inbox/availability', { key });
    assert.equal(availability.json.open_now, false);
    const before = await visitor.locator('.info', { hasText: UNAVAILABLE }).count();
    await talkButton.click();
    await visitor.locator('.info', { hasText: UNAVAILABLE }).nth(before).waitFor();
    // Back to always open.
    await inbox.locator('#hours-enabled').uncheck();
    await inbox.locator('#hours-save').click();
    await inbox
      .locator('#available-now', { hasText: 'Someone is available now.' })
      .waitFor({ timeout: 5000 })
      .catch(async () => {
        await inbox.reload();
        await inbox.locator('#available-now', { hasText: 'Someone is available now.' }).waitFor();
      });
  });

  const requestsBeforeHandoff = { n: 0 };
  await step(`the visitor asks for a person: the member's inbox shows it within ${INBOX_BOUND_MS} ms`, async () => {
    await inbox.goto(`${base}#/inbox`);
    await inbox.locator('#inbox-live[data-live="true"]').waitFor();
    await inbox.locator('#inbox-empty').waitFor();
    requestsBeforeHandoff.n = h.llm.requests.length;
    const row = inbox.locator(`#inbox-waiting li[data-conversation="${conversationId}"]`);
    const started = Date.now();
    await talkButton.click();
    await row.waitFor({ timeout: 10_000 });
    const elapsed = Date.now() - started;
    walk.log(`  inbox row shown ${elapsed} ms after the visitor's click`);
    assert.ok(elapsed <= INBOX_BOUND_MS, `the inbox row took ${elapsed} ms`);
    await row.locator('.inbox-summary', { hasText: 'question about my order' }).waitFor();
    await inbox.locator('#inbox-count', { hasText: '1' }).waitFor();
    await visitor.locator('.info', { hasText: WAITING }).waitFor();
    await visitor.locator('.handoff-status', { hasText: 'Waiting for a person' }).waitFor();
    assert.equal(await talkButton.isVisible(), false);
    await walk.shot(inbox, 'inbox-waiting-row', { fullPage: false });
    await walk.shot(visitor, 'visitor-waiting', { fullPage: false });
  });

  await step('the member opens it, claims it and replies; the visitor sees the reply live with the name', async () => {
    await inbox.locator(`#inbox-waiting li[data-conversation="${conversationId}"] a`).click();
    await inbox.locator('#handoff-summary', { hasText: 'question about my order' }).waitFor();
    await inbox.locator('#claim').click();
    await inbox.locator('#conversation-mode', { hasText: 'A person answers' }).waitFor();
    await inbox.locator(`#inbox-mine li[data-conversation="${conversationId}"]`).waitFor();
    await visitor.locator('.info', { hasText: 'Ana from the team joined the conversation.' }).waitFor();
    // The transitions say who made them: the visitor's request, then Ana's claim.
    await inbox.locator('#inbox-transcript .mode-change', { hasText: 'Waiting for a person (the visitor)' }).waitFor();
    await inbox.locator('#inbox-transcript .mode-change', { hasText: 'A person answers (Ana)' }).waitFor();
    await inbox.locator('#human-reply').fill(HUMAN_REPLY);
    const started = Date.now();
    await inbox.locator('#send-reply').click();
    const reply = visitor.locator('.msg.human', { hasText: HUMAN_REPLY });
    await reply.waitFor();
    walk.log(`  the person's reply reached the widget in ${Date.now() - started} ms`);
    assert.equal(await reply.locator('.who').textContent(), 'AnaTeam', 'the name, then the team marker');
    assert.equal(await reply.locator('.who .person').textContent(), 'Team');
    await visitor.locator('.handoff-status', { hasText: 'You are chatting with Ana' }).waitFor();
    await walk.shot(visitor, 'visitor-human-reply', { fullPage: false });
  });

  await step('the visitor answers: the member sees it live; an internal note stays internal', async () => {
    await visitorSend(VISITOR_ANSWER);
    await inbox.locator('#inbox-transcript .message-user', { hasText: VISITOR_ANSWER }).waitFor();
    await visitor.locator('.log[aria-busy="false"]').waitFor();
    await inbox.locator('#internal-note').fill(NOTE);
    await inbox.locator('#add-note').click();
    await inbox.locator('#inbox-transcript .internal-note', { hasText: NOTE }).waitFor();
    await inbox.locator('#release-note').fill(RELEASE_NOTE);
    await walk.shot(inbox, 'inbox-claimed-conversation', { fullPage: true });
    const widgetText = await visitor.evaluate(
      () => document.querySelector('[data-agentry-widget]')?.shadowRoot?.textContent ?? '',
    );
    assert.ok(!widgetText.includes(NOTE), 'the note never reaches the visitor');
    assert.equal(h.llm.requests.length, requestsBeforeHandoff.n, 'the model was not called while people held it');
  });

  await step('a viewer reads the conversation without the buttons to take it', async () => {
    const viewer = await memberContext(browser, h, viewerSession);
    cleanup.push(() => viewer.context.close());
    await viewer.page.goto(`${base}#/inbox/${conversationId}`);
    await viewer.page.locator('#inbox-transcript .message-user', { hasText: VISITOR_ANSWER }).waitFor();
    for (const id of ['#claim', '#resolve', '#human-reply', '#internal-note', '#release', '#toggle-availability'])
      assert.equal(await viewer.page.locator(id).count(), 0, `a viewer has no ${id}`);
    const denied = await viewer.page.evaluate(async (id) => {
      const res = await fetch(`/v1/conversations/${id}/assign`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      return res.status;
    }, conversationId);
    assert.ok(denied === 403 || denied === 401, `a viewer's claim is refused (${denied})`);
    await walk.shot(viewer.page, 'viewer-reads-only', { fullPage: false });
    assert.deepEqual(viewer.errors, []);
  });

  await step(
    'release to the bot: the next visitor message is answered by the model, which saw the person',
    async () => {
      await inbox.locator('#release').click();
      await inbox.locator('#conversation-mode', { hasText: 'Bot answers' }).waitFor();
      await inbox.locator('#inbox-empty').waitFor();
      await visitor.locator('.info', { hasText: 'The assistant answers again.' }).waitFor();
      await talkButton.waitFor();
      assert.equal(h.llm.requests.length, requestsBeforeHandoff.n, 'still no model call');
      await visitorSend('Thanks, is it done?');
      await visitor.locator('.msg.assistant', { hasText: 'I see Ana from our team refunded order 1234' }).waitFor();
      assert.equal(h.llm.requests.length, requestsBeforeHandoff.n + 1, 'one model call for the one message');
      const seen = JSON.stringify(h.llm.requests.at(-1)?.body);
      assert.ok(seen.includes(HUMAN_REPLY), "the model's input holds the person's reply");
      assert.ok(seen.includes(VISITOR_ANSWER), "the model's input holds what the visitor told the person");
      assert.ok(!seen.includes(NOTE), 'the internal note never reaches the model');
      await walk.shot(visitor, 'visitor-bot-again', { fullPage: false });
    },
  );

  await step('a reload restores the transcript with the person’s reply and name', async () => {
    await visitor.reload();
    await visitor.locator('.launcher').click();
    await visitor.locator('.msg.human', { hasText: HUMAN_REPLY }).waitFor();
    await visitor.locator('.msg.human .person').first().waitFor();
    await visitor.locator('.msg.assistant', { hasText: 'I see Ana from our team' }).waitFor();
    await walk.shot(visitor, 'visitor-after-reload', { fullPage: false });
  });

  await step('the Conversations list offers Take over on a live conversation; then resolve', async () => {
    await inbox.goto(`${base}#/conversations`);
    const takeOver = inbox.locator(`[data-take-over="${conversationId}"]`);
    await takeOver.waitFor();
    await walk.shot(inbox, 'conversations-take-over', { fullPage: false });
    await takeOver.click();
    await inbox.waitForURL(new RegExp(`#/inbox/${conversationId}$`));
    await inbox.locator('#conversation-mode', { hasText: 'A person answers' }).waitFor();
    await visitor.locator('.info', { hasText: 'Ana from the team joined the conversation.' }).last().waitFor();
    await inbox.locator('#resolve').click();
    await inbox.locator('#conversation-mode', { hasText: 'Resolved' }).waitFor();
    await visitor.locator('.info', { hasText: 'resolved' }).waitFor();
    await inbox.goto(`${base}#/conversations/${conversationId}`);
    await inbox.locator('#take-over').waitFor();
  });

  assert.deepEqual(member.errors, [], 'no uncaught errors in the dashboard');
  assert.deepEqual(visitorErrors, [], 'no uncaught errors on the shop page');
}

browserSuite(
  'dashboard inbox e2e',
  'human handoff and the live inbox (issue 21)',
  'a visitor asks for a person, a member claims, replies, releases; the model resumes knowing it',
  main,
  cleanup,
  240_000,
);
