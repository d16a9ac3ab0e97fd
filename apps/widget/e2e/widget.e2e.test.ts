/**
 * Browser test of the embeddable widget against the real API (embedded mode, fake model server,
 * recording tool endpoint), driving Debian's Chromium with playwright-core.
 *
 *   pnpm vitest run apps/widget/e2e      (part of `pnpm test`; builds the widget first)
 *
 * A host page with hostile CSS is served on one port; the API on another, behind a TCP relay
 * the test can cut to simulate a network drop. The page embeds `<relay>/widget.js`, so the
 * widget talks to the API cross-origin with a publishable key that allows only the host page.
 * Screenshots go to test-artifacts/widget/.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions, type FakeRequest, type FakeTurn } from '@agentry/testkit';
import { chromium, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, describe, it } from 'vitest';
import { ADMIN_TOKEN, startHarness } from '../../api/src/test-support/harness.ts';

const appDir = fileURLToPath(new URL('../', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const shotsDir = join(repoRoot, 'test-artifacts/widget');
const CHROMIUM = chromiumLaunchOptions().executablePath;

const PRIMES_CODE =
  '(function sumPrimes(limit) { let sum = 0; for (let n = 2; n < limit; n++) { let prime = true; for (let d = 2; d * d <= n; d++) { if (n % d === 0) { prime = false; break; } } if (prime) sum += n; } return sum; })(1000);';
const HELLO_REPLY =
  'Hello! I am **the Acme test agent**. I can answer questions, run small computations and book demos.';
const LONG_REPLY = Array.from({ length: 40 }, (_, i) => `Sentence ${i + 1} of a long answer that streams slowly.`).join(
  ' ',
);
const XSS_REPLY = (leakUrl: string) =>
  [
    'Here are some things:',
    '',
    '<img src=x onerror="window.__xss=1">',
    '',
    '<svg><animate onbegin="window.__xss=2" attributeName=x dur=1s></animate></svg>',
    '',
    '<math><mtext><table><mglyph><style><img src=x onerror="window.__xss=3"></style></mglyph></table></mtext></math>',
    '',
    '[click me](javascript:window.__xss=4)',
    '',
    '<a href="jav&#x09;ascript:window.__xss=5">tab link</a>',
    '',
    '[entity link](jav&#x09;ascript:window.__xss=6)',
    '',
    '<iframe srcdoc="<script>parent.__xss=7</script>"></iframe>',
    '',
    '<form><button formaction="javascript:window.__xss=8">go</button></form>',
    '',
    '<details open ontoggle="window.__xss=9">x</details>',
    '',
    `![secret](${leakUrl})`,
    '',
    'A safe link: [docs](https://example.com/docs) and `code`.',
  ].join('\n');

/** The scripted model: picks its answer from the last user message or tool result. */
function responder(leakUrl: string) {
  return (req: FakeRequest): FakeTurn => {
    const messages: Array<{ role: string; content: unknown }> = req.body.messages ?? [];
    const last = messages.at(-1);
    const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
    if (last?.role === 'tool') {
      // A search_knowledge result: cite the source that holds the warranty passage.
      const marker = text.match(/\[(\d+)\][^[]*seven-year warranty/)?.[1];
      if (marker) return { type: 'reply', text: `The tent poles carry a seven-year warranty [${marker}].` };
      if (text.includes('76127')) return { type: 'reply', text: 'The sum of all primes below 1000 is **76127**.' };
      if (text.includes('declined')) return { type: 'reply', text: 'Okay, I did not run anything.' };
      if (text.includes('blocked')) return { type: 'reply', text: `Sandbox says: ${text}` };
      return { type: 'reply', text: 'Your demo is booked.' };
    }
    if (/primes/i.test(text))
      return {
        type: 'reply',
        text: 'Let me compute that in your browser.',
        toolCalls: [{ name: 'browser_js_eval', arguments: { code: PRIMES_CODE } }],
      };
    if (/decline test/i.test(text))
      return {
        type: 'reply',
        toolCalls: [{ name: 'browser_js_eval', arguments: { code: 'window.__ran = true; 42' } }],
      };
    if (/sandbox check/i.test(text))
      return {
        type: 'reply',
        toolCalls: [
          {
            name: 'browser_js_eval',
            arguments: {
              code: "(() => { try { return String(top.document.title); } catch (e) { return 'blocked: ' + e.name; } })()",
            },
          },
        ],
      };
    if (/warranty/i.test(text))
      return { type: 'reply', toolCalls: [{ name: 'search_knowledge', arguments: { query: 'tent pole warranty' } }] };
    if (/book a demo/i.test(text))
      return { type: 'reply', toolCalls: [{ name: 'book_demo', arguments: { email: 'ada@example.com' } }] };
    if (/show me things/i.test(text)) return { type: 'reply', text: XSS_REPLY(leakUrl) };
    if (/long story/i.test(text)) return { type: 'reply', text: LONG_REPLY, chunkSize: 12, chunkDelayMs: 25 };
    return { type: 'reply', text: HELLO_REPLY, chunkSize: 3, chunkDelayMs: 30 };
  };
}

/** A TCP relay in front of the API: `cut()` drops every open connection, `block` refuses new ones. */
async function startRelay(target: URL) {
  const sockets = new Set<Socket>();
  let blocked = false;
  const server = createTcpServer((client) => {
    if (blocked) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    cut: () => {
      for (const s of sockets) s.destroy();
    },
    /** Refuses new connections and drops the open ones (the browser's keep-alive sockets too). */
    setBlocked: (on: boolean) => {
      blocked = on;
      if (on) for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The host page: hostile CSS and the one-line embed. */
async function startHostPage(scriptTag: () => string) {
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/favicon')) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Host page</title>
<style>
  * { all: unset !important; font-size: 40px !important; color: #d00 !important; font-family: "Comic Sans MS", cursive !important }
  head, style, script, title { display: none !important }
  body, h1, p { display: block !important; margin: 12px !important }
  button { background: yellow !important; border: 5px solid red !important }
</style></head>
<body><h1 id="host-title">Acme clinic software</h1><p>A host page with very aggressive CSS.</p>
${scriptTag()}
</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const cleanup: Array<() => Promise<unknown> | unknown> = [];
const screenshots: string[] = [];
let currentPage: Page | undefined;

async function shot(page: Page, name: string): Promise<void> {
  const path = join(shotsDir, `${String(screenshots.length + 1).padStart(2, '0')}-${name}.png`);
  // Finished animations: a panel caught mid-fade shows the host page through it.
  await page.screenshot({ path, animations: 'disabled' });
  screenshots.push(path);
  progress.push(`  screenshot: ${path}`);
}

/**
 * The run's progress (steps, screenshots), printed as one block when the test ends: vitest prints
 * every console.log as its own block headed by the test's long name, some 30 of them per run.
 * A failing step is printed at once too, on stderr.
 */
const progress: string[] = [];
const failures: string[] = [];

/** Runs one step; a failing step is reported and the rest still run (so one gap does not hide others). */
async function step(name: string, fn: () => Promise<void>): Promise<void> {
  const started = Date.now();
  try {
    await fn();
    progress.push(`✓ ${name} (${Date.now() - started} ms)`);
  } catch (error) {
    const line = `✗ ${name}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
    progress.push(line);
    console.error(line);
    failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    if (currentPage) await shot(currentPage, `failure-${name.replace(/\W+/g, '-').slice(0, 40)}`).catch(() => {});
  }
}

async function main(): Promise<void> {
  rmSync(shotsDir, { recursive: true, force: true });
  mkdirSync(shotsDir, { recursive: true });
  await build({ root: appDir, configFile: join(appDir, 'vite.config.ts'), logLevel: 'warn' });

  // The same platform the API tests use: embedded mode, fake model, recording tool endpoint.
  const h = await startHarness('embedded', 'openai');
  cleanup.push(() => h.close());
  const { platform, endpoint, llm } = h;
  const leakUrl = `${endpoint.url}/leak?q=secret`;
  llm.setResponder(responder(leakUrl));
  const relay = await startRelay(new URL(platform.url));
  cleanup.push(() => relay.close());

  const admin = async (method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(`${platform.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = await res.json();
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const tenant = await admin('POST', '/v1/tenants', ADMIN_TOKEN, { name: 'Widget e2e' });
  const sk: string = tenant.api_key.key;
  // A knowledge base the agent answers from (issue 20): its answer's sources show under it.
  const base = await admin('POST', '/v1/knowledge-bases', sk, { name: 'Acme manuals' });
  const manual = await admin('POST', `/v1/knowledge-bases/${base.id}/documents`, sk, {
    title: 'Trailblazer tent manual',
    format: 'markdown',
    text: '# Trailblazer tent\n\n## Warranty\n\nThe aluminium poles carry a seven-year warranty against breakage.\n\n## Care\n\nDry the fly before packing.',
  });
  for (let i = 0; ; i++) {
    const doc = await admin('GET', `/v1/knowledge-bases/${base.id}/documents/${manual.id}`, sk);
    if (doc.status === 'ready') break;
    assert.ok(doc.status !== 'failed' && i < 300, `manual not ready: ${JSON.stringify(doc)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const agent = await admin('POST', '/v1/agents', sk, {
    publish: true,
    config: {
      basic_settings: { name: 'Acme helper', description: 'Helps visitors of Acme', language: 'English' },
      action_books: [],
      tools: [
        {
          name: 'browser_js_eval',
          description: "Run JavaScript in the visitor's browser and return its value",
          type: 'client',
          parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
        },
        {
          name: 'book_demo',
          description: 'Book a product demo',
          approval: 'always',
          parameters: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] },
          endpoint: { url: `${endpoint.url}/book`, method: 'POST', body: { email: '{{email}}' } },
        },
      ],
      context: [{ name: 'plan', type: 'string' }],
      knowledge: { bases: ['Acme manuals'], mode: 'tool', top_k: 3 },
      // A flow whose confirm question comes with quick-reply buttons (issue 19).
      flows: [
        {
          name: 'newsletter',
          description: 'Sign the visitor up for the newsletter.',
          triggers: { patterns: ['(?i)^sign me up$'] },
          steps: [
            {
              id: 'ask',
              type: 'confirm',
              prompt: 'Send you the monthly newsletter?',
              yes_label: 'Yes',
              no_label: 'No thanks',
            },
            { id: 'done', type: 'end', message: 'You are on the list.' },
          ],
        },
      ],
      widget: {
        title: 'Acme Help',
        greeting: 'Hello from **Acme**! Ask me anything.',
        colors: { primary: '#0f766e', background: '#ffffff', text: '#1f2937' },
        position: 'bottom-right',
        suggested_questions: ['What can you do?', 'Book a demo for ada@example.com'],
        allowed_origins: ['http://127.0.0.1:1'],
        browser_js_eval: true,
      },
    },
  });
  const agentId: string = agent.id ?? agent.agent?.id;
  assert.ok(agentId, `agent id in ${JSON.stringify(agent).slice(0, 200)}`);

  let pk = '';
  const host = await startHostPage(
    () => `<script src="${relay.url}/widget.js" data-key="${pk}" data-agent="${agentId}" async></script>`,
  );
  cleanup.push(() => host.close());
  const hostUrl = `http://127.0.0.1:${host.port}/`;
  const foreignUrl = `http://localhost:${host.port}/`; // another origin, same page
  const key = await admin('POST', '/v1/api-keys', sk, {
    kind: 'publishable',
    name: 'widget e2e',
    agents: [agentId],
    allowed_origins: [`http://127.0.0.1:${host.port}`],
  });
  pk = key.key;

  await step('the API serves /widget.js cross-origin with cache headers; bootstrap shows no secrets', async () => {
    const res = await fetch(`${platform.url}/widget.js`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /javascript/);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.match(res.headers.get('cache-control') ?? '', /max-age=\d{4,}/);
    const etag = res.headers.get('etag') ?? '';
    assert.equal((await fetch(`${platform.url}/widget.js`, { headers: { 'if-none-match': etag } })).status, 304);
    const boot = await fetch(`${platform.url}/v1/widget/bootstrap?agent_id=${agentId}`, {
      headers: { authorization: `Bearer ${pk}`, origin: `http://127.0.0.1:${host.port}` },
    }).then((r) => r.json());
    assert.deepEqual(boot.client_tools, ['browser_js_eval']);
    assert.deepEqual(boot.context_variables, ['plan']);
    assert.equal(boot.widget.title, 'Acme Help');
    assert.equal(boot.widget.browser_js_eval, true);
    const text = JSON.stringify(boot);
    for (const secret of ['allowed_origins', endpoint.url, 'book_demo', 'Helps visitors', 'system'])
      assert.ok(!text.includes(secret), `bootstrap leaks ${secret}`);
  });

  const browser = await chromium.launch(chromiumLaunchOptions());
  cleanup.push(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US' });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  currentPage = page;
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const requested: string[] = [];
  page.on('request', (r) => requested.push(r.url()));

  const panel = page.locator('.panel');
  const input = page.locator('#input');
  const lastAssistant = page.locator('.msg.assistant').last();
  const idle = () => page.locator('.log[aria-busy="false"]').waitFor();
  const send = async (text: string) => {
    await input.fill(text);
    await input.press('Enter');
  };
  /** Sends `text` and returns the card it brings (not an older one). */
  const sendForCard = async (text: string) => {
    const cards = page.locator('.card');
    const before = await cards.count();
    await send(text);
    const card = cards.nth(before);
    await card.waitFor();
    return card;
  };

  await step('the launcher appears, themed, and the host CSS does not leak in', async () => {
    await page.goto(hostUrl);
    await page.locator('.launcher').waitFor();
    await page.waitForFunction(() => 'Agentry' in window && typeof (window as any).Agentry.open === 'function');
    await page.locator('.launcher').click();
    await page.locator('header h2', { hasText: 'Acme Help' }).waitFor();
    const styles = await page.evaluate(() => {
      const shadow = document.querySelector('[data-agentry-widget]')!.shadowRoot!;
      const css = (sel: string) => getComputedStyle(shadow.querySelector(sel)!);
      return {
        hostH1: getComputedStyle(document.getElementById('host-title')!).fontSize,
        title: css('header h2').fontSize,
        titleFont: css('header h2').fontFamily,
        titleColor: css('header h2').color,
        input: css('#input').fontSize,
        launcherBg: css('.launcher').backgroundColor,
        launcherPosition: css('.launcher').position,
        panelPosition: css('.panel').position,
        suggestion: css('.suggestions button').borderTopColor,
      };
    });
    assert.equal(styles.hostH1, '40px', 'the host page CSS is active');
    assert.equal(styles.title, '16px');
    assert.equal(styles.input, '14px');
    assert.ok(!/comic/i.test(styles.titleFont), styles.titleFont);
    assert.equal(styles.titleColor, 'rgb(255, 255, 255)');
    assert.equal(styles.launcherBg, 'rgb(15, 118, 110)');
    assert.equal(styles.launcherPosition, 'fixed');
    assert.equal(styles.panelPosition, 'fixed');
    assert.equal(styles.suggestion, 'rgb(15, 118, 110)');
    await page.locator('.msg.assistant.greeting', { hasText: 'Hello from Acme!' }).waitFor();
    await page.locator('.suggestions button', { hasText: 'What can you do?' }).waitFor();
    await shot(page, 'open-greeting');
  });

  await step('keyboard: focus stays in the open panel, Escape closes and returns focus', async () => {
    const focusedInPanel = () =>
      page.evaluate(() => {
        const shadow = document.querySelector('[data-agentry-widget]')!.shadowRoot!;
        return !!shadow.activeElement && shadow.querySelector('.panel')!.contains(shadow.activeElement);
      });
    assert.ok(await focusedInPanel(), 'the input has focus on open');
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press(i % 3 === 2 ? 'Shift+Tab' : 'Tab');
      assert.ok(await focusedInPanel(), `focus left the panel after ${i + 1} tabs`);
    }
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'hidden' });
    const focused = await page.evaluate(
      () => document.querySelector('[data-agentry-widget]')!.shadowRoot!.activeElement?.className,
    );
    assert.equal(focused, 'launcher');
    await page.keyboard.press('Enter');
    await panel.waitFor();
    assert.equal(await page.locator('.launcher').getAttribute('aria-expanded'), 'true');
    assert.equal(await panel.getAttribute('role'), 'dialog');
  });

  await step('chat: the reply streams token by token', async () => {
    await send('hello there');
    await page.locator('.msg.user', { hasText: 'hello there' }).waitFor();
    const streaming = page.locator('.msg.assistant.streaming');
    await streaming.waitFor();
    await page.waitForFunction(() => {
      const s = document.querySelector('[data-agentry-widget]')!.shadowRoot!.querySelector('.msg.streaming');
      return (s?.textContent?.length ?? 0) > 5;
    });
    const partial = (await streaming.textContent()) ?? '';
    await shot(page, 'streaming');
    await idle();
    const final = (await lastAssistant.textContent()) ?? '';
    assert.equal(final, HELLO_REPLY.replaceAll('**', ''));
    assert.ok(partial.length < final.length, `saw partial text (${partial.length} < ${final.length})`);
    assert.equal(await lastAssistant.locator('strong').textContent(), 'the Acme test agent');
    await page.locator('.sr[aria-live="polite"]', { hasText: 'Acme test agent' }).waitFor({ state: 'attached' });
    await shot(page, 'streamed');
  });

  await step('a network drop mid-stream: the reply resumes with nothing lost or repeated', async () => {
    await send('tell me a long story');
    await page.waitForFunction(() => {
      const s = document.querySelector('[data-agentry-widget]')!.shadowRoot!.querySelector('.msg.streaming');
      return (s?.textContent?.length ?? 0) > 60;
    });
    relay.cut();
    await idle();
    assert.equal((await lastAssistant.textContent()) ?? '', LONG_REPLY);
    assert.ok(
      requested.some((u) => /\/v1\/runs\/[^/]+\/events\?after=/.test(u)),
      'the widget resumed with ?after=',
    );
  });

  await step('the conversation survives a reload', async () => {
    await page.reload();
    await page.locator('.launcher').click();
    await page.locator('.msg.user', { hasText: 'hello there' }).waitFor();
    await page.locator('.msg.assistant', { hasText: 'the Acme test agent' }).waitFor();
    await page.locator('.msg.assistant', { hasText: 'Sentence 40 of a long answer' }).waitFor();
    assert.equal(await page.locator('.msg.user').count(), 2);
    assert.equal(await page.locator('.suggestions button').count(), 0, 'no suggestions once chatting');
    const saved = await page.evaluate((id) => localStorage.getItem(`agentry:${id}`), agentId);
    assert.match(saved ?? '', /conversationId/);
    await shot(page, 'after-reload');
  });

  await step('seed 004: browser_js_eval sums the primes below 1000 after the visitor clicks Run', async () => {
    const before = llm.requests.length;
    const card = await sendForCard('What is the sum of all primes below 1000? Compute it in my browser.');
    assert.equal(await card.getAttribute('data-tool'), 'browser_js_eval');
    await card.locator('pre', { hasText: 'sumPrimes' }).waitFor();
    assert.ok((await card.locator('pre .k').count()) > 3, 'the code is highlighted');
    await shot(page, 'client-tool-card');
    await card.getByRole('button', { name: 'Run' }).click();
    await card.locator('.outcome', { hasText: '76127' }).waitFor();
    await page.locator('.msg.assistant', { hasText: 'The sum of all primes below 1000 is 76127.' }).waitFor();
    const next = llm.requests.slice(before).at(-1);
    assert.ok(JSON.stringify(next?.body.messages.at(-1)).includes('76127'), 'the model got 76127');
    await idle();
    await shot(page, 'client-tool-answered');
  });

  await step('browser_js_eval runs sandboxed, away from the host page', async () => {
    const card = await sendForCard('sandbox check');
    await card.getByRole('button', { name: 'Run' }).click();
    await page.locator('.msg.assistant', { hasText: 'Sandbox says' }).waitFor();
    assert.match((await lastAssistant.textContent()) ?? '', /blocked/);
    await idle();
  });

  await step('decline: the model hears the visitor declined, and nothing runs', async () => {
    const card = await sendForCard('decline test please');
    await card.getByRole('button', { name: 'Decline' }).click();
    await page.locator('.msg.assistant', { hasText: 'Okay, I did not run anything.' }).waitFor();
    assert.ok(
      JSON.stringify(llm.requests.at(-1)?.body.messages.at(-1)).includes('The user declined to run this tool.'),
    );
    assert.equal(await page.evaluate(() => (window as any).__ran), undefined);
    await idle();
  });

  await step('approval: a server tool call waits for Approve, then hits the endpoint', async () => {
    const hits = endpoint.requests.filter((r) => r.path === '/book').length;
    const card = await sendForCard('Book a demo for ada@example.com');
    assert.equal(await card.getAttribute('data-kind'), 'approval');
    await card.locator('h3', { hasText: 'book_demo' }).waitFor();
    await card.locator('pre', { hasText: 'ada@example.com' }).waitFor();
    assert.equal(endpoint.requests.filter((r) => r.path === '/book').length, hits, 'nothing sent before approval');
    await shot(page, 'approval-card');
    await card.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.msg.assistant', { hasText: 'Your demo is booked.' }).waitFor();
    const booked = endpoint.requests.filter((r) => r.path === '/book');
    assert.equal(booked.length, hits + 1);
    assert.deepEqual(booked.at(-1)?.json, { email: 'ada@example.com' });
    await idle();
  });

  await step('XSS payloads in a reply render inert; images wait for a click', async () => {
    await send('show me things');
    await page.locator('.msg.assistant', { hasText: 'A safe link' }).waitFor();
    await idle();
    await page.waitForTimeout(500);
    const bubble = lastAssistant;
    assert.equal(await page.evaluate(() => (window as any).__xss), undefined);
    for (const tag of ['img', 'svg', 'math', 'iframe', 'form', 'script', 'style', 'details', 'animate'])
      assert.equal(await bubble.locator(tag).count(), 0, `no <${tag}> in the reply`);
    const links = await bubble
      .locator('a')
      .evaluateAll((as) =>
        as.map((a) => ({ href: a.getAttribute('href'), rel: a.getAttribute('rel'), target: a.getAttribute('target') })),
      );
    assert.deepEqual(links, [{ href: 'https://example.com/docs', rel: 'noopener noreferrer', target: '_blank' }]);
    const handlers = await bubble.evaluate((root) =>
      [root, ...root.querySelectorAll('*')].flatMap((el) =>
        [...el.attributes].filter((a) => /^on|style|srcdoc|formaction/i.test(a.name)).map((a) => a.name),
      ),
    );
    assert.deepEqual(handlers, []);
    await bubble.getByRole('button', { name: /Load image from 127\.0\.0\.1/ }).waitFor();
    assert.ok(!requested.some((u) => u.includes('/leak')), 'the image was not fetched');
    assert.ok(!endpoint.requests.some((r) => r.path.startsWith('/leak')), 'the image host saw nothing');
    // Clicking the remaining controls (the image button aside) does nothing dangerous either.
    await page.evaluate(() => (window as any).__xss === undefined || (window as any).__xss);
    await shot(page, 'xss-inert');
  });

  await step('network down: a friendly message, never a blank widget', async () => {
    relay.setBlocked(true);
    try {
      await send('are you there?');
      await page.locator('.notice', { hasText: 'Cannot reach the assistant' }).waitFor();
      await shot(page, 'network-down');
    } finally {
      relay.setBlocked(false);
    }
    await idle();
  });

  await step('a flow question offers quick replies, kept over a reload; clicking Yes continues the flow', async () => {
    const buttons = page.locator('.quick-replies button');
    await send('sign me up');
    await page.locator('.msg.assistant', { hasText: 'Send you the monthly newsletter?' }).waitFor();
    await idle();
    await buttons.first().waitFor();
    assert.deepEqual(await buttons.allTextContents(), ['Yes', 'No thanks']);
    await shot(page, 'quick-replies');
    await page.reload();
    await page.locator('.launcher').click();
    await buttons.first().waitFor();
    assert.deepEqual(await buttons.allTextContents(), ['Yes', 'No thanks'], 'restored from the conversation');
    await buttons.first().click();
    await page.locator('.msg.user', { hasText: 'Yes' }).last().waitFor();
    assert.equal(await buttons.count(), 0, 'the buttons go once a message is sent');
    await page.locator('.msg.assistant', { hasText: 'You are on the list.' }).waitFor();
    await idle();
    assert.equal(await buttons.count(), 0, 'no buttons once the flow ended');
    await shot(page, 'quick-reply-sent');
  });

  await step('an answer from the knowledge base lists its source under it, kept over a reload', async () => {
    await send('What is the warranty on the tent poles?');
    await page.locator('.msg.assistant', { hasText: 'seven-year warranty [1]' }).waitFor();
    const sources = page.locator('.sources').last();
    await sources.waitFor();
    assert.match((await sources.textContent()) ?? '', /Trailblazer tent manual/);
    assert.equal(await sources.locator('a').count(), 0, 'a pasted document has no link');
    await idle();
    await shot(page, 'knowledge-sources');
    await page.reload();
    await page.locator('.launcher').click();
    await page.locator('.sources', { hasText: 'Trailblazer tent manual' }).last().waitFor();
  });

  await step('new conversation starts empty', async () => {
    await page.locator('button.new').click();
    assert.equal(await page.locator('.msg.user').count(), 0);
    await page.locator('.msg.greeting').waitFor();
    assert.equal(await page.evaluate((id) => localStorage.getItem(`agentry:${id}`), agentId), null);
  });

  await step('a page on an origin the key does not allow gets a clear message', async () => {
    const foreign = await context.newPage();
    currentPage = foreign;
    await foreign.goto(foreignUrl);
    await foreign.locator('.launcher').click();
    await foreign.locator('.notice', { hasText: 'not enabled on this website' }).waitFor();
    await foreign.locator('.notice', { hasText: `http://localhost:${host.port}` }).waitFor();
    await shot(foreign, 'origin-refused');
    await foreign.close();
    currentPage = page;
  });

  await step('phones: the open panel fills the screen; Chinese UI with data-lang', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 760 }, isMobile: true, hasTouch: true });
    const mobile = await phone.newPage();
    currentPage = mobile;
    await mobile.goto(hostUrl);
    await mobile.evaluate(() => {
      const s = document.querySelector('script[data-key]')!;
      const copy = document.createElement('script');
      for (const a of s.attributes) copy.setAttribute(a.name, a.value);
      copy.dataset.lang = 'zh';
      document.querySelector('[data-agentry-widget]')?.remove();
      document.body.append(copy);
    });
    await mobile.waitForFunction(() => document.querySelectorAll('[data-agentry-widget]').length === 1);
    await mobile.locator('.launcher').click();
    await mobile.locator('#input[placeholder="输入消息…"]').waitFor();
    const box = await mobile.locator('.panel').boundingBox();
    assert.equal(box?.width, 390);
    await shot(mobile, 'phone-zh');
    await phone.close();
    currentPage = page;
  });

  assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  progress.push(`${screenshots.length} screenshots in ${shotsDir}`);
  assert.deepEqual(failures, [], `${failures.length} step(s) failed`);
}

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `[widget e2e] NOTICE: no Chromium at ${CHROMIUM}: the browser tests are SKIPPED (apt-get install -y chromium).`,
  );
}

describe.runIf(hasChromium)('the chat widget in Chromium, on a hostile host page, against the real API', () => {
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await Promise.resolve(fn()).catch(() => {});
  });
  it('streams, resumes, survives reloads, runs client tools and approvals, renders XSS inert, refuses other origins', async () => {
    try {
      await main();
    } finally {
      if (progress.length > 0) console.log(progress.join('\n'));
    }
  }, 240_000);
});
