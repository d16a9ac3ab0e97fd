/**
 * The flow editor in Chromium, against the real API: a non-developer builds the leave-request
 * flow with forms only (ask start date → ask end date → ask reason → confirm → the agent's HTTP
 * tool → an end message with a value saved from the tool's answer), tries the trigger tester,
 * saves, and runs the flow in the playground: the trigger sentence and the answers reach the end
 * message, and the recording server got exactly one request with the collected values.
 *
 *   pnpm vitest run apps/dashboard/e2e/flows.e2e.test.ts     (builds the dashboard first)
 *
 * Screenshots go to test-artifacts/dashboard-flows/.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions } from '@agentry/testkit';
import { chromium } from 'playwright-core';
import { call, type Harness, startHarness } from '../../api/src/test-support/harness.ts';
import { fieldId } from '../src/config/field-pointer.ts';
import { browserSuite, signedInOwner } from './browser-suite.ts';
import { buildDashboard } from './build-dashboard.ts';
import { walkthrough } from './walkthrough.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const shotsDir = join(repoRoot, 'test-artifacts/dashboard-flows');
const EMAIL = 'flow-owner@northwind.example';
const PASSWORD = 'correct horse battery';
const TRIGGER = 'I want to make a leave request';

const cleanup: Array<() => Promise<unknown> | unknown> = [];

/** The HR agent with its one HTTP tool (pointed at the recording server) and no flow yet. */
function hrConfig(endpoint: string) {
  return {
    basic_settings: { name: 'Hera', description: 'HR assistant of Northwind', language: 'English' },
    tools: [
      {
        name: 'create_leave_request',
        description: 'File a leave request for the current employee.',
        parameters: {
          type: 'object',
          properties: {
            start: { type: 'string', format: 'date' },
            end: { type: 'string', format: 'date' },
            reason: { type: 'string', maxLength: 200 },
          },
          required: ['start', 'end', 'reason'],
        },
        endpoint: {
          url: `${endpoint}/leave-requests`,
          method: 'POST',
          body: { start: '{{start}}', end: '{{end}}', reason: '{{reason}}' },
        },
      },
    ],
  };
}

/** A tenant, its owner signed in through the API, and the HR agent. */
async function seed(h: Harness): Promise<{ key: string; agentId: string; session: string }> {
  const { key, session } = await signedInOwner(h, {
    tenant: 'Northwind',
    email: EMAIL,
    password: PASSWORD,
    name: 'Hana',
  });
  const agent = await call(h, 'POST', '/v1/agents', { key, body: { config: hrConfig(h.endpoint.url), publish: true } });
  assert.equal(agent.status, 201, JSON.stringify(agent.json));
  return { key, agentId: agent.json.id, session };
}

/** The CSS selector of the form field of a config pointer (the editor's ids are derived from it). */
const field = (pointer: string) => `#${fieldId(pointer)}`;
const F = '/flows/0';

async function main(): Promise<void> {
  const walk = walkthrough(shotsDir);
  walk.start();
  const { step } = walk;
  await buildDashboard();
  const h = await startHarness('embedded', 'openai');
  cleanup.push(() => h.close());
  h.endpoint.respondWith(() => ({ status: 201, body: { id: 'LR-7' } }));
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
  const stepCard = (k: number) => page.locator('section.flow-step').nth(k);

  await step('open the Flows tab and add a flow: name, description, a trigger phrase', async () => {
    await page.goto(`${base}#/agents/${agentId}/flows`);
    await page.locator('#add-flow').click();
    await page.locator('section[aria-label="Flow flow_1"]').waitFor();
    await page.fill(field(`${F}/name`), 'leave_request');
    await page.fill(field(`${F}/description`), 'File a leave request: dates, reason, confirmation, then file it.');
    await page.fill(`${field(`${F}/triggers/patterns`)}-phrase`, 'leave request');
    await page.click(`${field(`${F}/triggers/patterns`)}-add`);
    assert.equal(await page.inputValue(field(`${F}/triggers/patterns/0`)), '(?i)\\bleave request\\b');
  });

  await step('the trigger tester says which sentences start the flow', async () => {
    const tester = `${field(`${F}/triggers/patterns`)}-tester`;
    await page.fill(tester, TRIGGER);
    await page.click(`${tester}-run`);
    await page.locator(`${tester}-result`, { hasText: 'Yes: it starts the flow' }).waitFor();
    await walk.shot(page, 'trigger-tester', { fullPage: false });
    await page.fill(tester, 'How many days of leave do I have left?');
    await page.click(`${tester}-run`);
    await page.locator(`${tester}-result`, { hasText: 'No: this sentence does not start the flow' }).waitFor();
  });

  await step('three values to collect, typed by picking a kind', async () => {
    for (let n = 1; n <= 3; n++) await page.click('#add-slot-0');
    const slots: Array<[string, string]> = [
      ['start', 'date'],
      ['end', 'date'],
      ['reason', 'text'],
    ];
    for (const [n, [name, kind]] of slots.entries()) {
      await page.fill(field(`${F}/slots/value_${n + 1}/name`), name);
      await page.selectOption(field(`${F}/slots/${name}/kind`), kind);
    }
  });

  await step('the steps, as forms: three questions, a confirmation, the tool, the end message', async () => {
    for (const type of ['ask', 'ask', 'ask', 'confirm', 'tool']) await page.click(`#add-step-0-${type}`);
    assert.equal(await page.locator('section.flow-step').count(), 6, 'five steps above the end step');
    // An ask step without its value is an error on that field, from the API's checks.
    await page.locator(`${field(`${F}/steps/0/slot`)}[aria-invalid="true"]`).waitFor();
    const questions = [
      ['start', 'Which day does your leave start? (YYYY-MM-DD)'],
      ['end', 'And the last day? (YYYY-MM-DD)'],
      ['reason', 'What is the reason for your leave?'],
    ];
    for (const [k, [slot, prompt]] of questions.entries()) {
      await page.selectOption(field(`${F}/steps/${k}/slot`), slot!);
      await page.fill(field(`${F}/steps/${k}/prompt`), prompt!);
    }
    await page.fill(field(`${F}/steps/3/prompt`), 'File leave from {{start}} to {{end}} ({{reason}})?');
    await page.fill(field(`${F}/steps/3/yes_label`), 'Yes, file it');
    await page.selectOption(field(`${F}/steps/4/tool`), 'create_leave_request');
    // The tool's parameters come prefilled with the values of the same name.
    const args = field(`${F}/steps/4/arguments`);
    const prefilled: Record<string, string> = {};
    for (let row = 0; row < 3; row++)
      prefilled[await page.inputValue(`${args}-row${row}-key`)] = await page.inputValue(`${args}-row${row}-value`);
    assert.deepEqual(prefilled, { start: '{{start}}', end: '{{end}}', reason: '{{reason}}' });
    const save = field(`${F}/steps/4/save`);
    await page.click(`${save}-add`);
    await page.fill(`${save}-row0-key`, 'request_id');
    await page.fill(`${save}-row0-value`, '/id');
    await page.fill(field(`${F}/steps/5/message`), 'Done: your leave request {{request_id}} is filed.');
    await stepCard(5).waitFor();
    await page.locator('#validation-state', { hasText: 'Valid' }).waitFor();
    await walk.shot(page, 'flow-editor');
  });

  await step('the graph preview shows every step and the ways between them', async () => {
    const graph = page.locator('.flow-graph');
    await graph.scrollIntoViewIfNeeded();
    assert.deepEqual(
      await graph.locator('g.node').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-node'))),
      ['ask', 'ask_2', 'ask_3', 'confirm', 'tool', 'done', '__end'],
    );
    assert.equal(await graph.locator('g.edge-yes').count(), 1);
    assert.equal(await graph.locator('g.edge-no').count(), 1);
    await walk.shot(page, 'flow-graph', { fullPage: false });
  });

  await step('save: the stored version holds the flow as built', async () => {
    await page.click('#save-draft');
    await page.locator('#editor-notice', { hasText: 'Saved' }).waitFor();
    const agent = await call(h, 'GET', `/v1/agents/${agentId}`, { key });
    const version = await call(h, 'GET', `/v1/agents/${agentId}/versions/${agent.json.latest_version}`, { key });
    const flow = version.json.config.flows[0];
    assert.deepEqual(flow.triggers, { patterns: ['(?i)\\bleave request\\b'] });
    assert.deepEqual(flow.slots.start.schema, { type: 'string', format: 'date' });
    assert.deepEqual(
      flow.steps.map((s: { type: string }) => s.type),
      ['ask', 'ask', 'ask', 'confirm', 'tool', 'end'],
    );
    assert.deepEqual(flow.steps[4].arguments, { start: '{{start}}', end: '{{end}}', reason: '{{reason}}' });
    assert.deepEqual(flow.steps[4].save, { request_id: '/id' });
  });

  await step('the playground: the trigger sentence and the answers reach the end message', async () => {
    await page.click('#tab-playground');
    const llmBefore = h.llm.requests.length;
    const say = async (text: string, reply: string) => {
      await page.fill('#playground-input', text);
      await page.locator('#playground-send:not([disabled])').click();
      await page.locator('.turn').last().locator('.bubble-assistant', { hasText: reply }).waitFor();
    };
    await say(TRIGGER, 'Which day does your leave start?');
    await say('from 2026-12-01', 'And the last day?');
    await say('2026-12-05', 'What is the reason for your leave?');
    await say('Family visit', 'File leave from 2026-12-01 to 2026-12-05 (Family visit)?');
    await page.locator('.turn').last().locator('.flow-event', { hasText: 'Yes, file it' }).waitFor();
    await say('Yes, file it', 'Done: your leave request LR-7 is filed.');
    await page.locator('.turn').last().locator('.flow-event[data-action="ended"]').waitFor();
    assert.equal(h.llm.requests.length, llmBefore, 'a flow started by its trigger asks no model');
    assert.equal(h.endpoint.requests.length, 1, 'the tool was called exactly once');
    assert.deepEqual(h.endpoint.requests[0]!.json, { start: '2026-12-01', end: '2026-12-05', reason: 'Family visit' });
    await walk.shot(page, 'playground-flow');
  });

  assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
}

browserSuite(
  'dashboard flows e2e',
  'building a flow in the agent editor, in Chromium against the real API',
  'builds the leave-request flow with forms, tests its trigger, saves it and runs it in the playground',
  main,
  cleanup,
  180_000,
);
