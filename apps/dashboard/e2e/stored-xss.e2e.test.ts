/**
 * Stored XSS: script, event-handler, `javascript:` and external-resource payloads are stored through
 * the real API in every field the dashboard shows (tenant and user names, agent name and description,
 * tool description, user and assistant messages, visitor data in tool arguments and results, a failed
 * run's error text), then every page showing them is opened in Chromium, as served by the API with
 * its Content-Security-Policy. Nothing may run (no `window.__xss`, no binding call, no dialog), no
 * request may leave for another origin (each is recorded and aborted), and the CSP must not have had
 * to block anything: the page itself must never try. The payloads must show as plain text.
 *
 *   pnpm vitest run apps/dashboard/e2e/stored-xss.e2e.test.ts     (builds the dashboard first)
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions, type FakeTurn } from '@agentry/testkit';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, describe, it } from 'vitest';
import { invitationToken } from '../../api/src/test-support/accounts.ts';
import { ADMIN_TOKEN, call, type Harness, seedConfig, startHarness } from '../../api/src/test-support/harness.ts';
import { buildDashboard } from './build-dashboard.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const shotsDir = join(repoRoot, 'test-artifacts/dashboard-xss');
const CHROMIUM = chromiumLaunchOptions().executablePath;
const EMAIL = 'xss-owner@acme.example';
const PASSWORD = 'correct horse battery';
const TOOL = 'save_customer_information';

/**
 * Every kind of payload, tagged with where it was stored: an inline script, event handlers, a
 * `javascript:` link and bare URL text, an external image and a CSS `url()`. Each would set
 * `window.__xss`, call the `__xssHit` binding or open a dialog, or load from example.invalid.
 */
function payload(tag: string): string {
  return [
    `XSS[${tag}]`,
    `<script>__xss='${tag}'</script>`,
    `<img src=x onerror="__xssHit('${tag}')">`,
    `<svg onload="alert('${tag}')"></svg>`,
    `<a href="javascript:__xss='${tag}'">link</a>`,
    `javascript:alert(1)`,
    `<img src="http://example.invalid/${tag}.png">`,
    `<b style="background:url(http://example.invalid/${tag}-css.png)">css</b>`,
  ].join(' ');
}

/** The same kinds in 200 characters at most, for the tenant's and the user's names. */
function shortPayload(tag: string): string {
  return `XSS[${tag}]<script>__xss=1</script><img src=x onerror=__xssHit(1)><svg onload=alert(1)><a href=javascript:alert(1)>a</a><img src=http://example.invalid/i><b style=background:url(//example.invalid/c)>`;
}

/** An agent name has at most 100 characters: a script, a handler and an external image. */
const agentName = 'XSS[agent]<script>__xss=1</script><img src=x onerror=alert(1)><img src=http://example.invalid/a>';

let currentPage: Page | undefined;
const cleanup: Array<() => Promise<unknown> | unknown> = [];

interface Seeded {
  agentId: string;
  okConversation: string;
  failedConversation: string;
}

/** Stores the payloads through the API: the tenant, its owner, an agent, a good and a failed conversation. */
async function seed(h: Harness): Promise<Seeded & { key: string }> {
  const tenant = await call(h, 'POST', '/v1/tenants', {
    key: ADMIN_TOKEN,
    body: { name: shortPayload('tenant'), owner_email: EMAIL },
  });
  assert.equal(tenant.status, 201, JSON.stringify(tenant.json));
  const key: string = tenant.json.api_key.key;
  const accepted = await call(h, 'POST', '/v1/auth/accept-invitation', {
    body: {
      token: await invitationToken(h, EMAIL, tenant.json.owner_invitation),
      password: PASSWORD,
      name: shortPayload('user'),
    },
  });
  assert.equal(accepted.status, 200, JSON.stringify(accepted.json));

  const config = seedConfig();
  config.basic_settings.name = agentName;
  config.basic_settings.description = payload('agent-description');
  config.tools[0].description = payload('tool-description');
  config.tools[0].endpoint.url = `${h.endpoint.url}/contacts/add`;
  const agent = await call(h, 'POST', '/v1/agents', { key, body: { config, publish: true } });
  assert.equal(agent.status, 201, JSON.stringify(agent.json));
  const agentId: string = agent.json.id;

  // A completed run: the visitor's data goes through the tool and comes back in its result.
  h.endpoint.respondWith(() => ({ status: 200, body: { saved: payload('tool-result') } }));
  const turns: FakeTurn[] = [
    { type: 'reply', toolCalls: [{ name: TOOL, arguments: { email: 'v@example.com', name: payload('visitor') } }] },
    { type: 'reply', text: payload('assistant') },
  ];
  h.llm.enqueue(...turns);
  const okConversation = await converse(h, key, agentId, payload('user-message'));
  // A failed run: the provider's error text is stored as the run's error.
  h.llm.enqueue({ type: 'error', status: 400, message: payload('run-error') });
  const failedConversation = await converse(h, key, agentId, 'please fail');
  return { key, agentId, okConversation, failedConversation };
}

async function converse(h: Harness, key: string, agentId: string, text: string): Promise<string> {
  const conversation = await call(h, 'POST', '/v1/conversations', { key, body: { agent_id: agentId } });
  assert.equal(conversation.status, 201, JSON.stringify(conversation.json));
  const id: string = conversation.json.id;
  const sent = await call(h, 'POST', `/v1/conversations/${id}/messages`, { key, body: { content: text } });
  assert.ok(sent.status < 300, JSON.stringify(sent.json));
  return id;
}

/** What the page did that it must not: set by the payloads, the network and the CSP. */
interface Findings {
  executed: string[];
  dialogs: string[];
  external: string[];
  cspViolations: string[];
}

async function watch(context: BrowserContext, appOrigin: string, findings: Findings): Promise<void> {
  await context.exposeBinding('__xssHit', (_source, tag: string) => {
    findings.executed.push(`binding:${tag}`);
  });
  // A blocked load or inline script is reported here even though the CSP stopped it.
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const w = window as unknown as { __csp?: string[] };
      w.__csp = [...(w.__csp ?? []), `${e.effectiveDirective} ${e.blockedURI}`];
    });
  });
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('data:') || new URL(url).origin === appOrigin) return route.continue();
    findings.external.push(url);
    return route.abort();
  });
}

/** After a page settled: nothing executed there and the CSP blocked nothing. */
async function check(page: Page, name: string, findings: Findings): Promise<void> {
  await page.waitForTimeout(300); // let image errors, onload handlers and CSP reports fire
  const state = await page.evaluate(() => {
    const w = window as unknown as { __xss?: string; __csp?: string[] };
    return { xss: w.__xss, csp: w.__csp ?? [] };
  });
  if (state.xss !== undefined) findings.executed.push(`${name}: window.__xss=${state.xss}`);
  findings.cspViolations.push(...state.csp.map((v) => `${name}: ${v}`));
}

/** The editor shows stored text in form fields: one of them holds the payload, verbatim. */
async function fieldShows(page: Page, text: string): Promise<void> {
  await page.waitForFunction(
    (value) =>
      [...document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input, textarea')].some(
        (field) => field.value === value,
      ),
    text,
  );
}

async function main(): Promise<void> {
  mkdirSync(shotsDir, { recursive: true });
  await buildDashboard();
  const h = await startHarness('embedded', 'openai');
  cleanup.push(() => h.close());
  const { agentId, okConversation, failedConversation } = await seed(h);
  const base = `${h.platform.url}/dashboard/`;
  const served = await fetch(base);
  assert.equal(served.status, 200, 'the API serves the built dashboard');
  const csp = served.headers.get('content-security-policy') ?? '';
  assert.match(csp, /script-src 'self'(;|$)/, `a strict CSP: ${csp}`);

  const login = await fetch(`${h.platform.url}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  assert.equal(login.status, 200);
  const session = /agentry_session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
  assert.ok(session, 'the login set the session cookie');

  const browser = await chromium.launch(chromiumLaunchOptions());
  cleanup.push(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  await context.addCookies([{ name: 'agentry_session', value: session, url: h.platform.url }]);
  const findings: Findings = { executed: [], dialogs: [], external: [], cspViolations: [] };
  await watch(context, new URL(base).origin, findings);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('dialog', (dialog) => {
    findings.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));

  /** Opens a screen and waits until the stored payload shows there as text. */
  const visit = async (name: string, hash: string, shows: string[], open?: () => Promise<void>) => {
    // A fresh document per screen: a hash change alone would keep the editor's tab, and each
    // screen's checks should see only what that screen did.
    await page.goto('about:blank');
    await page.goto(`${base}${hash}`);
    await page.locator('#user-email').waitFor();
    await open?.();
    for (const tag of shows) await page.getByText(`XSS[${tag}]`).filter({ visible: true }).first().waitFor();
    await check(page, name, findings);
  };

  await visit('agents', '#/agents', ['agent', 'tenant']);
  await page.screenshot({ path: join(shotsDir, 'agents.png'), fullPage: true });
  currentPage = page;
  await visit('agent settings', `#/agents/${agentId}/settings`, ['tenant']);
  await fieldShows(page, agentName);
  await fieldShows(page, payload('agent-description'));
  await visit('agent tools', `#/agents/${agentId}/tools`, []);
  await fieldShows(page, payload('tool-description'));
  await visit('agent prompt', `#/agents/${agentId}/prompt`, ['agent', 'agent-description']);
  await visit('agent versions', `#/agents/${agentId}/versions`, []);
  await visit('agent json', `#/agents/${agentId}/json`, []);
  await visit('conversations', '#/conversations', ['agent']);
  await visit('transcript', `#/conversations/${okConversation}`, ['user-message', 'assistant', 'visitor'], async () => {
    await page.getByRole('button', { name: 'Show run trace' }).first().click();
    await page.locator('.trace').waitFor();
  });
  await page.getByText('XSS[tool-result]').first().waitFor();
  await page.screenshot({ path: join(shotsDir, 'transcript.png'), fullPage: true });
  await visit('failed transcript', `#/conversations/${failedConversation}`, [], async () => {
    await page.getByRole('button', { name: 'Show run trace' }).first().click();
    await page.locator('.trace [role="alert"]').waitFor();
  });
  await page.getByText('XSS[run-error]').first().waitFor();
  await page.screenshot({ path: join(shotsDir, 'failed-run.png'), fullPage: true });
  await visit('usage', '#/usage', ['agent']);
  await visit('members', '#/settings/members', ['user']);
  await visit('widget settings', '#/settings/widget', []);
  console.log(`  screenshots: ${shotsDir}`);

  // One comparison, so a failure shows every finding at once.
  assert.deepEqual(
    { ...findings, pageErrors },
    { executed: [], dialogs: [], external: [], cspViolations: [], pageErrors: [] },
    'no payload ran, no dialog opened, nothing was requested from another origin, the CSP blocked nothing',
  );
}

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `[dashboard stored-XSS e2e] NOTICE: no Chromium at ${CHROMIUM}: this browser test is SKIPPED (apt-get install -y chromium).`,
  );
}

describe.runIf(hasChromium)('stored payloads in every field the dashboard shows stay inert text', () => {
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await Promise.resolve(fn()).catch(() => {});
  });
  it('runs nothing and loads nothing from another origin, on every page that shows them', async () => {
    await main().catch(async (error) => {
      await currentPage?.screenshot({ path: join(shotsDir, 'failure.png'), fullPage: true }).catch(() => {});
      throw error;
    });
  }, 120_000);
});
