import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * CI guard: every request to a tenant-controlled destination must go through `egressFetch`
 * (packages/http-tools/src/egress.ts). This scans the platform's source for other ways to open an
 * outbound connection and fails unless the file is listed below with the reason its requests are
 * not tenant-controlled. Dify and Flowise kept finding code paths that skipped their SSRF guard;
 * adding a file here needs a reviewer to agree with the reason.
 */
const allowed: Record<string, string> = {
  'packages/http-tools/src/egress.ts': 'the egress guard itself: sends each hop with undici fetch after checking it',
  'packages/http-tools/src/egress/pinned-agent.ts': 'the egress guard’s undici Agent that pins the checked addresses',
  'packages/provider-openai/src/openai-model.ts':
    'model SDK adapter: the OpenAI SDK fetches the operator-configured base URL (OPENAI_BASE_URL env), never a ' +
    'tenant value; if tenants may ever set a base URL, pass a fetch built on egressFetch instead',
  'packages/provider-anthropic/src/anthropic-model.ts':
    'model SDK adapter: the Anthropic SDK fetches the operator-configured base URL (ANTHROPIC_BASE_URL env), never a ' +
    'tenant value; if tenants may ever set a base URL, pass a fetch built on egressFetch instead',
  'packages/provider-openai/src/openai-embedding-model.ts':
    'embedding SDK adapter, as the chat adapter: the SDK fetches the operator-configured base URL; a tenant’s base URL ' +
    'is given `egressModelFetch` by `embeddingModelFor` (@agentry/models), which refuses to build one without it',
  'packages/knowledge/src/crawl/crawl-site.ts':
    'calls only the injected `options.fetch` (a PageFetcher): ingestion passes `createEgressPageFetcher`, the egress guard',
  'packages/knowledge/src/crawl/robots-rules.ts':
    'fetches robots.txt only through the injected PageFetcher (the egress guard’s, as the crawl does)',
  'apps/cli/src/api-client.ts':
    'the CLI (`agentry test`) calls the Agentry API at the URL the person running it gave (`--api-url`), from their ' +
    'machine or CI: not a tenant value reaching the platform, and never a platform code path',
  'apps/api/src/test-support/harness.ts':
    'test harness: calls the platform under test on its own local URL (not tenant-controlled, never shipped code paths)',
  'apps/api/src/test-support/accounts.ts':
    'test helper: a cookie-keeping browser stand-in that calls the platform under test on its local URL (never shipped code paths)',
};

const root = fileURLToPath(new URL('../../../../', import.meta.url));

/** Source directories scanned: every app and package `src`, minus tests, test kits and browser code (dashboard, widget), which only call our own API. */
function sourceFiles(): string[] {
  const files: string[] = [];
  for (const group of ['apps', 'packages']) {
    for (const name of readdirSync(join(root, group))) {
      if (['packages/testkit', 'apps/dashboard', 'apps/widget'].includes(`${group}/${name}`)) continue;
      const src = join(root, group, name, 'src');
      let entries: string[];
      try {
        entries = readdirSync(src, { recursive: true, encoding: 'utf8' });
      } catch {
        continue;
      }
      for (const entry of entries) {
        const path = relative(root, join(src, entry)).split('\\').join('/');
        if (!/\.(ts|tsx|js|mjs|cjs)$/.test(path) || /\.test\.ts$|\.d\.ts$/.test(path)) continue;
        if (path.split('/').includes('node_modules')) continue;
        files.push(path);
      }
    }
  }
  return files.sort();
}

/** Drops block comments and `//` comments that start a line or follow whitespace (not `https://` in strings). */
function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
}

const patterns: Array<[string, RegExp]> = [
  ['fetch(', /\bfetch\s*\(/],
  ['globalThis.fetch', /\bglobalThis\s*\.\s*fetch\b/],
  ['undici', /\bundici\b/],
  ['http.request / https.request', /\bhttps?\s*\.\s*request\s*\(/],
  ['http.get / https.get', /\bhttps?\s*\.\s*get\s*\(/],
  ['http2.connect', /\bhttp2\s*\.\s*connect\s*\(/],
  ['net/tls connect', /\b(net|tls)\s*\.\s*(connect|createConnection)\s*\(/],
  [
    'client import from node:http(s)/http2/net/tls',
    /import\s*\{[^}]*\b(request|get|connect|createConnection|Agent)\b[^}]*\}\s*from\s*['"](node:)?(https?|http2|net|tls)['"]/,
  ],
];

function findings(path: string): string[] {
  const code = stripComments(readFileSync(join(root, path), 'utf8'));
  return patterns.filter(([, pattern]) => pattern.test(code)).map(([name]) => name);
}

describe('no raw outbound requests outside the egress guard', () => {
  const files = sourceFiles();

  it('scans the platform source', () => {
    expect(files).toContain('packages/http-tools/src/egress.ts');
    expect(files.length).toBeGreaterThan(20);
  });

  it('finds fetch/undici/http.request only in allowlisted files', () => {
    const offenders = files
      .filter((path) => !(path in allowed))
      .map((path) => ({ path, uses: findings(path) }))
      .filter((f) => f.uses.length > 0);
    expect(
      offenders,
      'Send tenant-controlled requests through egressFetch (@agentry/http-tools); if this request is not ' +
        'tenant-controlled, add the file to `allowed` in this test with the reason.',
    ).toEqual([]);
  });

  it('has no stale allowlist entries', () => {
    for (const path of Object.keys(allowed)) {
      expect(files, `${path} no longer exists`).toContain(path);
      expect(findings(path), `${path} makes no raw request any more: remove it from the allowlist`).not.toEqual([]);
    }
  });

  it('catches the forms it is meant to catch', () => {
    const catches = (code: string) => patterns.some(([, p]) => p.test(stripComments(code)));
    expect(catches("await fetch(url, { method: 'POST' })")).toBe(true);
    expect(catches('const send = globalThis.fetch;')).toBe(true);
    expect(catches("import { request } from 'undici';")).toBe(true);
    expect(catches("const { Agent } = await import('undici');")).toBe(true);
    expect(catches('https.get(url, cb)')).toBe(true);
    expect(catches('http.request({ host })')).toBe(true);
    expect(catches("import { request as send } from 'node:https';")).toBe(true);
    expect(catches("import { connect } from 'node:net';")).toBe(true);
    expect(catches("const u = 'http://x'; fetch(u)")).toBe(true);
    expect(catches('// undici reports a socket dropped mid-body as a TypeError')).toBe(false);
    expect(catches("import { createServer } from 'node:http';")).toBe(false);
  });
});
