import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { queryObjects } from 'node:v8';
import { compileAgent, loadAgentConfig, type ToolContext } from '@agentry/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressPolicy } from './egress.ts';
import { createHttpToolExecutor, type RequestInfo } from './http-tool-executor.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let base: string;
const seen: Seen[] = [];
let flaky = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const url = new URL(req.url ?? '/', 'http://x');
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (url.pathname === '/contacts/add') return json(201, { ok: true, received: JSON.parse(body) });
      if (url.pathname.startsWith('/orders/')) {
        return json(200, {
          id: url.pathname.slice(8),
          status: 'shipped',
          secret_echo: req.headers.authorization,
          items: [1, 2],
        });
      }
      if (url.pathname === '/fail') return json(500, { error: 'x'.repeat(5000) });
      if (url.pathname === '/flaky') return flaky++ % 2 === 0 ? json(503, { error: 'busy' }) : json(200, { ok: true });
      if (url.pathname === '/slow') return void setTimeout(() => json(200, { late: true }), 1500);
      if (url.pathname === '/big') return json(200, { data: 'y'.repeat(200_000) });
      if (url.pathname === '/text') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('plain answer');
      }
      if (url.pathname === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
        return res.end();
      }
      json(404, { error: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** The test servers listen on 127.0.0.1, which the egress guard refuses unless allowlisted. */
const egress = createEgressPolicy({ allowlist: ['127.0.0.1'] });

const context: ToolContext = { context: { conversationId: 'conv-1', tenantId: 't-1' }, secrets: { TOKEN: 'tok-123' } };

function executor(
  tools: Array<Record<string, unknown>>,
  extra: { onRequest?: (i: RequestInfo) => void; maxResponseBytes?: number } = {},
) {
  const { config, hash } = loadAgentConfig({ basic_settings: { name: 'T' }, tools });
  return createHttpToolExecutor({ agent: compileAgent(config, hash), context, egress, ...extra });
}

const getTool = (name: string, path: string, more: Record<string, unknown> = {}) => ({
  name,
  description: name,
  parameters: { type: 'object', properties: { id: { type: 'string' } } },
  endpoint: { url: `${base}${path}`, method: 'GET', headers: { Authorization: 'Bearer {{secrets.TOKEN}}' }, ...more },
});

const call = (name: string, args: unknown = {}) => ({ type: 'tool_call' as const, id: 'c1', name, arguments: args });

describe('createHttpToolExecutor', () => {
  it('sends the seed example request and returns the parsed JSON', async () => {
    const seed = {
      name: 'save_customer_information',
      description: 'Save customer info to CRM',
      parameters: {
        type: 'object',
        properties: { email: { type: 'string' }, name: { type: 'string' } },
        required: ['email'],
      },
      endpoint: {
        url: `${base}/contacts/add`,
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: { email: '{email}', name: '{name}', dialogId: 'todo_autofill_by_system' },
      },
    };
    const result = await executor([seed]).execute(call('save_customer_information', { email: 'john@example.com' }));
    expect(result).toMatchObject({
      isError: false,
      output: { ok: true, received: { email: 'john@example.com', dialogId: 'conv-1' } },
      meta: { status: 201, method: 'POST', url: `${base}/contacts/add` },
    });
    expect(typeof result.meta?.durationMs).toBe('number');
    expect(seen.at(-1)?.headers['content-type']).toBe('application/json');
  });

  it('lists the tools it offers', () => {
    expect(
      executor([getTool('a', '/orders/{{id}}')])
        .definitions()
        .map((d) => d.name),
    ).toEqual(['a']);
  });

  it('answers an unknown tool with the available ones', async () => {
    const result = await executor([getTool('lookup', '/orders/{{id}}')]).execute(call('nope'));
    expect(result).toMatchObject({ isError: true, errorCode: 'unknown_tool', output: { available: ['lookup'] } });
  });

  it('answers invalid arguments with the issues, so the model can correct itself', async () => {
    const result = await executor([getTool('lookup', '/orders/{{id}}')]).execute(call('lookup', { id: 42 }));
    expect(result).toMatchObject({
      isError: true,
      errorCode: 'invalid_arguments',
      output: { issues: [{ path: '/id', code: 'wrong_type' }] },
    });
    const raw = await executor([getTool('lookup', '/orders/{{id}}')]).execute({
      ...call('lookup'),
      rawArguments: '{"id":',
    });
    expect(raw.errorCode).toBe('invalid_arguments');
  });

  it('masks secrets in meta and in the output', async () => {
    const infos: RequestInfo[] = [];
    const tool = getTool('lookup', '/orders/{{id}}', { query_params: { key: '{{secrets.TOKEN}}' } });
    const result = await executor([tool], { onRequest: (i) => infos.push(i) }).execute(call('lookup', { id: 'A 1' }));
    expect(seen.at(-1)?.url).toBe('/orders/A%201?key=tok-123');
    expect(seen.at(-1)?.headers.authorization).toBe('Bearer tok-123');
    expect(result.meta?.url).toBe(`${base}/orders/A%201?key=***`);
    expect(result.output).toMatchObject({ id: 'A%201', secret_echo: 'Bearer ***' });
    expect(infos).toEqual([
      expect.objectContaining({ tool: 'lookup', status: 200, url: `${base}/orders/A%201?key=***`, attempt: 1 }),
    ]);
    expect(JSON.stringify(result)).not.toContain('tok-123');
  });

  it('turns non-2xx into http_error with a bounded body excerpt', async () => {
    const result = await executor([getTool('f', '/fail')]).execute(call('f'));
    expect(result).toMatchObject({
      isError: true,
      errorCode: 'http_error',
      output: { status: 500 },
      meta: { status: 500 },
    });
    expect(String((result.output as { body: string }).body).length).toBeLessThanOrEqual(501);
  });

  it('re-checks redirects: one to the cloud metadata address is refused without being sent', async () => {
    const infos: RequestInfo[] = [];
    const result = await executor([getTool('r', '/redirect')], { onRequest: (i) => infos.push(i) }).execute(call('r'));
    expect(result).toMatchObject({
      isError: true,
      errorCode: 'egress_forbidden_address',
      output: { error: 'egress_forbidden_address', rule: 'link_local' },
    });
    expect((result.output as { message: string }).message).toMatch(/Redirect 1’s address is not allowed \(link-local/);
    expect(infos).toEqual([expect.objectContaining({ errorCode: 'egress_forbidden_address', attempt: 1 })]);
  });

  it('refuses private addresses by default, with the rule, and sends nothing', async () => {
    const { config, hash } = loadAgentConfig({
      basic_settings: { name: 'T' },
      tools: [getTool('o', '/orders/{{id}}')],
    });
    const before = seen.length;
    const strict = createHttpToolExecutor({ agent: compileAgent(config, hash), context });
    const result = await strict.execute(call('o', { id: '1' }));
    expect(result).toEqual({
      isError: true,
      errorCode: 'egress_forbidden_address',
      output: {
        error: 'egress_forbidden_address',
        rule: 'loopback',
        message:
          'The tool’s address is not allowed (loopback). Ask the platform operator to allowlist it if this is intended.',
      },
      meta: expect.objectContaining({ attempts: 1 }),
    });
    expect(seen.length).toBe(before);
  });

  it('times out with tool_timeout', async () => {
    const result = await executor([getTool('s', '/slow', { timeout: 0.2 })]).execute(call('s'));
    expect(result).toMatchObject({ isError: true, errorCode: 'tool_timeout' });
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await executor([getTool('s', '/slow')]).execute(call('s'), { signal: controller.signal });
    expect(result).toMatchObject({ isError: true, errorCode: 'tool_cancelled' });
  });

  it('reports an unreachable host as tool_unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const tool = { ...getTool('u', '/'), endpoint: { url: `http://127.0.0.1:${port}/x` } };
    const result = await executor([tool]).execute(call('u'));
    expect(result).toMatchObject({ isError: true, errorCode: 'tool_unreachable' });
  });

  it('retries idempotent requests on 5xx', async () => {
    flaky = 0;
    const result = await executor([{ ...getTool('f', '/flaky'), retries: 2 }]).execute(call('f'));
    expect(result).toMatchObject({ isError: false, output: { ok: true }, meta: { attempts: 2, status: 200 } });
  });

  it('keeps only the configured response fields and cuts to max_bytes', async () => {
    const shaped = await executor([
      { ...getTool('o', '/orders/{{id}}'), response: { fields: ['status', 'id'] } },
    ]).execute(call('o', { id: 'X' }));
    expect(shaped.output).toEqual({ status: 'shipped', id: 'X' });
    const cut = await executor([{ ...getTool('b', '/big'), response: { max_bytes: 100 } }]).execute(call('b'));
    expect(typeof cut.output).toBe('string');
    expect(cut.output as string).toMatch(/truncated/);
    expect((cut.output as string).length).toBeLessThan(200);
  });

  it('bounds how much of a response it reads', async () => {
    const result = await executor([{ ...getTool('b', '/big'), response: { max_bytes: 1_000_000 } }], {
      maxResponseBytes: 1000,
    }).execute(call('b'));
    expect(typeof result.output).toBe('string');
    expect(result.output as string).toMatch(/^\{"data":"y+/);
  });

  it('returns text responses as text', async () => {
    const result = await executor([getTool('t', '/text')]).execute(call('t'));
    expect(result).toMatchObject({ isError: false, output: 'plain answer' });
  });

  it('answers client tools and missing secrets with error results', async () => {
    const { config, hash } = loadAgentConfig({
      basic_settings: { name: 'T' },
      tools: [{ name: 'c', description: 'c', type: 'client' }, getTool('needs', '/orders/1')],
    });
    const noSecrets = createHttpToolExecutor({
      agent: compileAgent(config, hash),
      context: { context: {}, secrets: {} },
      egress,
    });
    expect((await noSecrets.execute(call('c'))).errorCode).toBe('client_tool');
    expect((await noSecrets.execute(call('needs'))).errorCode).toBe('missing_secret');
  });

  it('answers a path argument that would climb out of the path without sending anything', async () => {
    const before = seen.length;
    const result = await executor([getTool('o', '/orders/{{id}}')]).execute(call('o', { id: '..' }));
    expect(result).toMatchObject({ isError: true, errorCode: 'invalid_arguments' });
    expect(seen.length).toBe(before);
  });

  it('holds no signal of a finished call until its timeouts would have passed', async () => {
    // The tool's timeout and the egress guard's deadline used to keep each call's signals (and their
    // timers) alive for the whole timeout after the call ended: thousands of them in a busy worker.
    const run = new AbortController(); // the run's signal outlives its calls
    const tools = executor([getTool('o', '/orders/{{id}}', { timeout: 30 })]);
    const liveSignals = () => queryObjects(AbortSignal, { format: 'count' }) as number;
    await tools.execute(call('o', { id: 'warm-up' }), { signal: run.signal });
    const before = liveSignals();
    for (let i = 0; i < 20; i++) {
      expect((await tools.execute(call('o', { id: String(i) }), { signal: run.signal })).isError).toBe(false);
    }
    expect(liveSignals() - before).toBeLessThan(5);
  });
});
