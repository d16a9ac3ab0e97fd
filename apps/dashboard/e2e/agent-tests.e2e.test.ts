/**
 * Test conversations that gate publishing (issue 22) in Chromium, against the real API: an owner
 * chats with the refund agent in the playground (its refund tool really answers once), saves the
 * conversation as a test in one click (the tool call becomes a `tool_called` expectation and a
 * fixture with the answer that came back), narrows the expectation to order 1042 in the form,
 * turns on "require passing tests", saves a draft whose prompt breaks the refund, runs the tests
 * and sees the failing expectation next to what happened, sees publishing refused (the 409's
 * message and the failing case), fixes the draft, runs again and publishes. The refund endpoint
 * heard only the playground's call: the test runs sent nothing.
 *
 *   pnpm vitest run apps/dashboard/e2e/agent-tests.e2e.test.ts     (builds the dashboard first)
 *
 * Screenshots go to test-artifacts/dashboard-tests/.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions, type FakeRequest, type FakeTurn } from '@agentry/testkit';
import { chromium } from 'playwright-core';
import { call, type Harness, startHarness } from '../../api/src/test-support/harness.ts';
import { fieldId } from '../src/config/field-pointer.ts';
import { browserSuite, signedInOwner } from './browser-suite.ts';
import { buildDashboard } from './build-dashboard.ts';
import { walkthrough } from './walkthrough.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const shotsDir = join(repoRoot, 'test-artifacts/dashboard-tests');
const EMAIL = 'tests-owner@northwind.example';
const PASSWORD = 'correct horse battery';
const ASK = 'Please refund order 1042, it arrived broken.';
const DONE = 'Sorry about that! Your refund of order 1042 is done.';
const GOOD_PROMPT = 'You refund broken orders.';
const BROKEN_PROMPT = 'BROKEN: never refund anything.';

const cleanup: Array<() => Promise<unknown> | unknown> = [];
/** Milliseconds each model answer takes: set for one run, so its progress is seen live. */
let modelDelayMs = 0;

/**
 * The agent behaves as its prompt says, as a model would: a prompt saying BROKEN never calls the
 * refund tool. Keyed on the request, not on arrival order (test cases run concurrently).
 */
function refundModel(req: FakeRequest): FakeTurn {
  const body = JSON.stringify(req.body);
  const messages: Array<{ role: string; content?: unknown }> = req.body.messages ?? [];
  const last = messages.at(-1);
  const delayMs = modelDelayMs;
  if (last?.role === 'tool') return { type: 'reply', text: DONE, delayMs };
  if (/refund/i.test(String(last?.content ?? ''))) {
    if (body.includes('BROKEN')) return { type: 'reply', text: 'I cannot help with refunds.', delayMs };
    return {
      type: 'reply',
      toolCalls: [{ name: 'refund_order', arguments: { order_id: '1042', amount: 59 } }],
      delayMs,
    };
  }
  return { type: 'reply', text: 'How can I help?', delayMs };
}

function refundConfig(endpoint: string, background: string) {
  return {
    basic_settings: { name: 'Refund desk', description: 'Refunds of Northwind', background, language: 'English' },
    tools: [
      {
        name: 'refund_order',
        description: 'Refund an order',
        parameters: {
          type: 'object',
          properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
          required: ['order_id'],
        },
        endpoint: { url: `${endpoint}/refunds`, method: 'POST', body: { order_id: '{{order_id}}' } },
      },
    ],
  };
}

/** The CSS selector of a form field by the pointer of the value it edits. */
const field = (pointer: string) => `#${fieldId(pointer)}`;

async function main(): Promise<void> {
  const walk = walkthrough(shotsDir);
  walk.start();
  const { step } = walk;
  await buildDashboard();
  const h: Harness = await startHarness('embedded', 'openai');
  cleanup.push(() => h.close());
  h.llm.setResponder(refundModel);
  h.endpoint.respondWith(() => ({ status: 200, body: { status: 'refunded', amount: 59 } }));
  const { key, session } = await signedInOwner(h, {
    tenant: 'Northwind',
    email: EMAIL,
    password: PASSWORD,
    name: 'Tess',
  });
  const created = await call(h, 'POST', '/v1/agents', {
    key,
    body: { config: refundConfig(h.endpoint.url, GOOD_PROMPT), publish: true },
  });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const agentId: string = created.json.id;
  const api = async (path: string) => (await call(h, 'GET', path, { key })).json;

  const browser = await chromium.launch(chromiumLaunchOptions());
  cleanup.push(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  await context.addCookies([{ name: 'agentry_session', value: session, url: h.platform.url }]);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  walk.page = page;
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const base = `${h.platform.url}/dashboard/`;
  let testId = '';
  let playgroundCalls = 0;

  await step('chat in the playground: the agent refunds through its tool', async () => {
    await page.goto(`${base}#/agents/${agentId}/playground`);
    await page.fill('#playground-input', ASK);
    await page.locator('#playground-send:not([disabled])').click();
    await page.locator('.turn .bubble-assistant', { hasText: DONE }).waitFor();
    playgroundCalls = h.endpoint.requests.length;
    assert.equal(playgroundCalls, 1, 'the playground really called the refund endpoint once');
  });

  await step('save as test in one click: turns, the tool call as expectation and fixture', async () => {
    await page.locator('#save-as-test:not([disabled])').click();
    await page.waitForURL(/#\/agents\/[^/]+\/tests\/[0-9a-f-]{36}$/);
    testId = /tests\/([0-9a-f-]{36})$/.exec(page.url())?.[1] ?? '';
    await page.locator('#tab-tests[aria-selected="true"]').waitFor();
    assert.equal(await page.inputValue(field('/test/name')), ASK);
    assert.equal(await page.inputValue(field('/test/turns/0/user')), ASK);
    assert.equal(await page.inputValue(field('/test/turns/0/expect/0/type')), 'tool_called');
    assert.equal(await page.inputValue(field('/test/turns/0/expect/0/tool')), 'refund_order');
    assert.equal(await page.inputValue(field('/test/fixtures/0/tool')), 'refund_order');
    const output = field('/test/fixtures/0/output');
    const answer: Record<string, string> = {};
    for (let row = 0; row < 2; row++)
      answer[await page.inputValue(`${output}-row${row}-key`)] = await page.inputValue(`${output}-row${row}-value`);
    assert.deepEqual(answer, { status: 'refunded', amount: '59' });
    await walk.shot(page, 'saved-as-test');
  });

  await step('edit the expectation in the form: the refund must be for order 1042', async () => {
    const args = field('/test/turns/0/expect/0/arguments');
    await page.click(`${args}-add`);
    assert.equal(await page.inputValue(`${args}-row0-argument`), 'order_id');
    assert.equal(await page.inputValue(`${args}-row0-operator`), '=');
    await page.fill(`${args}-row0-value`, '1042');
    await page.click('#save-test');
    await page.locator('#test-notice', { hasText: 'Saved (revision 2)' }).waitFor();
    const stored = await api(`/v1/agents/${agentId}/tests/${testId}`);
    assert.deepEqual(stored.definition.turns[0].expect, [
      {
        type: 'tool_called',
        tool: 'refund_order',
        // order_id is declared as text: "1042" stays text, as the model sends it.
        arguments: { properties: { order_id: { const: '1042' } }, required: ['order_id'] },
      },
    ]);
    assert.deepEqual(stored.definition.fixtures, [
      { tool: 'refund_order', output: { status: 'refunded', amount: 59 } },
    ]);
    await walk.shot(page, 'expectation-edited');
  });

  await step('turn on "require passing tests"', async () => {
    await page.click('#back-to-tests');
    await page.locator('#tests-table', { hasText: ASK }).waitFor();
    await page.check('#require-passing-tests');
    await page.locator('#require-passing-tests:checked:not([disabled])').waitFor();
    assert.equal((await api(`/v1/agents/${agentId}`)).require_passing_tests, true);
  });

  const saveDraft = async (background: string, version: number) => {
    await page.click('#tab-settings');
    await page.fill(field('/basic_settings/background'), background);
    await page.click('#save-draft');
    await page.locator('#editor-notice', { hasText: `Saved as draft version ${version}.` }).waitFor();
  };
  /** Runs every test against the newest version (the default) and waits for the verdict. */
  const runAll = async (version: number) => {
    await page.click('#tab-tests');
    await page.locator(`#run-version option[value="${version}"]`).waitFor({ state: 'attached' });
    assert.equal(await page.inputValue('#run-version'), String(version), 'the newest version is the default');
    await page.click('#run-tests');
  };
  const verdict = (status: 'passed' | 'failed') =>
    page.locator(`#test-run-status[data-status="${status}"]`).waitFor({ timeout: 30_000 });

  await step('a draft whose prompt breaks the refund fails its test, with what happened', async () => {
    await saveDraft(BROKEN_PROMPT, 2);
    await runAll(2);
    await verdict('failed');
    await page.locator('#test-run-progress', { hasText: '1 of 1 tests done: 0 passed, 1 failed' }).waitFor();
    const failed = page.locator('.case-failed tr.expectation-failed');
    await failed.first().waitFor();
    assert.match(
      (await failed.first().textContent()) ?? '',
      /The agent calls refund_order with arguments that meet the conditions/,
    );
    assert.match(
      (await failed.first().locator('.expectation-detail').textContent()) ?? '',
      /refund_order was not called/,
    );
    await page.locator('.case-failed .bubble-assistant', { hasText: 'I cannot help with refunds.' }).waitFor();
    // The publish button says so too: the unchanged draft would publish version 2, whose tests fail.
    await page.locator('#save-publish-gate[data-state="failing"]').waitFor();
    await walk.shot(page, 'run-failed');
  });

  await step('publishing the failing draft is refused: the 409 message and the failing case', async () => {
    await page.click('#tab-versions');
    await page.locator('#gate-v2[data-state="failing"]').waitFor();
    await page.click('#publish-v2');
    await page.click('#publish-v2-confirm');
    const refusal = page.locator('#publish-refusal');
    await refusal.waitFor();
    assert.match((await refusal.textContent()) ?? '', /requires passing tests to publish/);
    assert.equal(await page.locator('#publish-refusal-cases li').textContent(), ASK);
    // An owner may publish anyway: it asks why first.
    await page.click('#publish-anyway');
    await page.locator('#publish-anyway-reason').waitFor();
    assert.equal(await page.locator('#publish-anyway-confirm').isDisabled(), true, 'no reason, no publish');
    assert.equal((await api(`/v1/agents/${agentId}`)).published_version, 1, 'nothing went live');
    await walk.shot(page, 'publish-refused');
  });

  await step(
    'fix the draft, run the tests again: live progress, then they pass with the fixture answering',
    async () => {
      await saveDraft(GOOD_PROMPT, 3);
      // A slow model: the run is seen going, and only its event stream can tell the page it ended.
      modelDelayMs = 700;
      await runAll(3);
      await page.locator('#test-run-progress', { hasText: '0 of 1 tests done' }).waitFor();
      await page.locator('#test-run-status[data-status="queued"], #test-run-status[data-status="running"]').waitFor();
      await walk.shot(page, 'run-live', { fullPage: false });
      await verdict('passed');
      modelDelayMs = 0;
      const details = page.locator('details.case-result', { hasText: ASK });
      await details.locator('summary').click();
      await details.locator('.badge-fixture').first().waitFor();
      await walk.shot(page, 'run-passed');
    },
  );

  await step('publish the fixed version; the test runs sent nothing to the refund endpoint', async () => {
    await page.click('#tab-versions');
    await page.locator('#gate-v3[data-state="passing"]').waitFor();
    await page.click('#publish-v3');
    await page.click('#publish-v3-confirm');
    await page.locator('#editor-notice', { hasText: 'Version 3 is live' }).waitFor();
    assert.equal((await api(`/v1/agents/${agentId}`)).published_version, 3);
    const runs = await api(`/v1/agents/${agentId}/test-runs`);
    assert.deepEqual(
      runs.data.map((r: { agent_version: number; status: string }) => [r.agent_version, r.status]),
      [
        [3, 'passed'],
        [2, 'failed'],
      ],
    );
    assert.equal(h.endpoint.requests.length, playgroundCalls, 'the test runs sent no request to the tool');
    await walk.shot(page, 'published');
  });

  assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
}

browserSuite(
  'dashboard tests e2e',
  'test conversations that gate publishing, in Chromium against the real API',
  'saves a playground chat as a test, edits it, gates publishing on it, sees it fail and pass, publishes',
  main,
  cleanup,
  180_000,
);
