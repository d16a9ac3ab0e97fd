import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compileAgent, loadAgentConfig, type ToolContext } from '@agentry/config';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closePooledAgents, createEgressPolicy } from './egress.ts';
import { createHttpToolExecutor } from './http-tool-executor.ts';

/**
 * Tenant secrets never follow a redirect to another origin. Two real servers on two ports of
 * 127.0.0.1 are two origins: "api" (the tool's endpoint, which redirects) and "elsewhere" (where a
 * redirect points). Both record every request; "elsewhere" must never see a secret.
 */

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const SECRET = 'tok-s3cr3t ~!*';
const seen = { api: [] as Seen[], elsewhere: [] as Seen[] };
const servers: Server[] = [];
let api = '';
let elsewhere = '';

function recorder(into: Seen[], route: (req: IncomingMessage, res: import('node:http').ServerResponse) => boolean) {
  return createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      into.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (route(req, res)) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, body }));
    });
  });
}

/** `/to-elsewhere/307` redirects to the other origin, `/to-self/307` to this one, `/reflect` echoes the query there. */
function redirects(req: IncomingMessage, res: import('node:http').ServerResponse): boolean {
  const url = new URL(req.url ?? '/', 'http://x');
  const [, kind, status] = url.pathname.split('/');
  const redirect = (code: number, location: string) => {
    res.writeHead(code, { location });
    res.end('moved');
    return true;
  };
  if (kind === 'to-elsewhere') return redirect(Number(status), `${elsewhere}/landing`);
  if (kind === 'to-self') return redirect(Number(status), '/landing');
  if (kind === 'to-forbidden') return redirect(Number(status), `http://127.0.0.2:${new URL(elsewhere).port}/landing`);
  if (kind === 'reflect') return redirect(302, `${elsewhere}/landing${url.search}`);
  return false;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  api = await listen(recorder(seen.api, redirects));
  elsewhere = await listen(recorder(seen.elsewhere, () => false));
});

afterAll(async () => {
  await closePooledAgents();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

beforeEach(() => {
  seen.api.length = 0;
  seen.elsewhere.length = 0;
});

/** Both test origins are on 127.0.0.1, which only the allowlist lets through (127.0.0.2 stays refused). */
const egress = createEgressPolicy({ allowlist: ['127.0.0.1'] });
const context: ToolContext = { context: { conversationId: 'conv-1' }, secrets: { TOKEN: SECRET, OTHER: 'unused-x' } };

function run(endpoint: Record<string, unknown>, args: Record<string, unknown> = {}) {
  const tool = {
    name: 'act',
    description: 'act',
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
    endpoint,
  };
  const { config, hash } = loadAgentConfig({ basic_settings: { name: 'T' }, tools: [tool] });
  const executor = createHttpToolExecutor({ agent: compileAgent(config, hash), context, egress });
  return executor.execute({ type: 'tool_call', id: 'c1', name: 'act', arguments: args });
}

/** A POST whose JSON body carries the secret; its credential headers carry it too. */
const secretBody = (path: string, method = 'POST') => ({
  url: `${api}${path}`,
  method,
  headers: { Authorization: 'Bearer {{secrets.TOKEN}}', 'X-Api-Key': '{{secrets.TOKEN}}', Accept: 'application/json' },
  body: { token: '{{secrets.TOKEN}}', q: '{{q}}' },
});

/** Every form the secret could take on the wire: raw, percent-encoded, form-encoded, JSON-escaped. */
function leaked(requests: Seen[]): boolean {
  const forms = [
    SECRET,
    encodeURIComponent(SECRET),
    new URLSearchParams({ s: SECRET }).toString().slice(2),
    'tok-s3cr3t',
  ];
  const wire = JSON.stringify(requests);
  return forms.some((form) => wire.includes(form));
}

describe('a request carrying a secret never follows a redirect to another origin with it', () => {
  it.each([307, 308])('refuses a cross-origin %i of a request whose body carries a secret', async (status) => {
    const result = await run(secretBody(`/to-elsewhere/${status}`), { q: 'hello' });
    expect(result).toMatchObject({
      isError: true,
      errorCode: 'egress_redirect_refused',
      output: { error: 'egress_redirect_refused', rule: 'secret_in_body' },
    });
    expect((result.output as { message: string }).message).toMatch(/another origin/);
    expect(seen.api).toHaveLength(1); // refused, not retried
    expect(seen.elsewhere).toEqual([]);
    expect(JSON.stringify(result)).not.toContain('tok-s3cr3t');
  });

  it.each([301, 302, 303])('follows a cross-origin %i as a GET without the body or any secret', async (status) => {
    const result = await run(secretBody(`/to-elsewhere/${status}`), { q: 'hello' });
    expect(result).toMatchObject({ isError: false, output: { method: 'GET', body: '' } });
    expect(seen.api[0]?.body).toContain('tok-s3cr3t'); // the endpoint itself gets it
    expect(seen.elsewhere).toHaveLength(1);
    expect(seen.elsewhere[0]?.headers).toMatchObject({ accept: 'application/json' });
    expect(leaked(seen.elsewhere)).toBe(false);
  });

  it('refuses a cross-origin 301 that would re-send a PUT body carrying a secret', async () => {
    const result = await run(secretBody('/to-elsewhere/301', 'PUT'));
    expect(result).toMatchObject({ errorCode: 'egress_redirect_refused', output: { rule: 'secret_in_body' } });
    expect(seen.elsewhere).toEqual([]);
  });

  it('drops a safelisted header that carries a secret on a cross-origin hop', async () => {
    const result = await run({
      url: `${api}/to-elsewhere/302`,
      method: 'GET',
      headers: { 'User-Agent': 'agentry {{secrets.TOKEN}}', Accept: 'application/json' },
    });
    expect(result.isError).toBe(false);
    expect(seen.api[0]?.headers['user-agent']).toBe(`agentry ${SECRET}`);
    expect(seen.elsewhere).toHaveLength(1);
    expect(seen.elsewhere[0]?.headers['user-agent']).not.toContain('tok-s3cr3t');
    expect(leaked(seen.elsewhere)).toBe(false);
  });

  it.each([
    ['in the URL path', '/to-elsewhere/307/{{secrets.TOKEN}}', {}],
    ['in the query string', '/to-elsewhere/307?key={{secrets.TOKEN}}', {}],
    ['in query_params', '/to-elsewhere/307', { query_params: { key: '{{secrets.TOKEN}}' } }],
  ])('refuses a cross-origin 307 of a request carrying a secret %s', async (_where, path, more) => {
    // The servers' ports are known only once they listen, after the table is built.
    const result = await run({ method: 'GET', url: `${api}${path}`, ...more });
    expect(result).toMatchObject({ errorCode: 'egress_redirect_refused', output: { rule: 'secret_in_url' } });
    expect(seen.api).toHaveLength(1);
    expect(seen.elsewhere).toEqual([]);
  });

  it('follows a cross-origin 302 of a GET with a secret in its query: the new URL is the Location’s alone', async () => {
    const result = await run({
      method: 'GET',
      url: `${api}/to-elsewhere/302`,
      query_params: { key: '{{secrets.TOKEN}}' },
    });
    expect(result.isError).toBe(false);
    expect(seen.elsewhere.map((s) => s.url)).toEqual(['/landing']);
    expect(leaked(seen.elsewhere)).toBe(false);
  });

  it('refuses a redirect whose Location hands the secret to another origin', async () => {
    const result = await run({ method: 'GET', url: `${api}/reflect`, query_params: { key: '{{secrets.TOKEN}}' } });
    expect(result).toMatchObject({ errorCode: 'egress_redirect_refused', output: { rule: 'secret_in_location' } });
    expect(seen.elsewhere).toEqual([]);
  });
});

describe('redirects that carry no secret to another origin still work', () => {
  it('a same-origin 307 keeps the method, the body and the credentials', async () => {
    const result = await run(secretBody('/to-self/307'), { q: 'hello' });
    expect(result).toMatchObject({ isError: false, output: { method: 'POST' } });
    expect(seen.api.map((s) => [s.method, s.url])).toEqual([
      ['POST', '/to-self/307'],
      ['POST', '/landing'],
    ]);
    expect(JSON.parse(seen.api[1]?.body ?? '')).toEqual({ token: SECRET, q: 'hello' });
    expect(seen.api[1]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(seen.elsewhere).toEqual([]);
  });

  it('a cross-origin 307 of a request without secrets is followed with its body', async () => {
    const result = await run({ url: `${api}/to-elsewhere/307`, method: 'POST', body: { q: '{{q}}' } }, { q: 'hi' });
    expect(result).toMatchObject({ isError: false, output: { method: 'POST', body: '{"q":"hi"}' } });
    expect(seen.elsewhere.map((s) => [s.method, s.body])).toEqual([['POST', '{"q":"hi"}']]);
  });

  it('a cross-origin 307 whose secret sits only in a credential header drops the header and keeps the body', async () => {
    const result = await run(
      {
        url: `${api}/to-elsewhere/307`,
        method: 'POST',
        headers: { Authorization: 'Bearer {{secrets.TOKEN}}' },
        body: { q: '{{q}}' },
      },
      { q: 'hi' },
    );
    expect(result.isError).toBe(false);
    expect(seen.elsewhere.map((s) => [s.method, s.body, s.headers.authorization])).toEqual([
      ['POST', '{"q":"hi"}', undefined],
    ]);
  });

  it('each hop still passes the egress checks', async () => {
    const result = await run({ url: `${api}/to-forbidden/307`, method: 'POST', body: { q: '{{q}}' } }, { q: 'hi' });
    expect(result).toMatchObject({ errorCode: 'egress_forbidden_address', output: { rule: 'loopback' } });
    expect(seen.elsewhere).toEqual([]);
  });
});
