import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  type FakeLlmServer,
  type FakeRequest,
  type FakeTurn,
  freePort,
  type RecordingServer,
  startFakeLlm,
  startRecordingServer,
} from '@agentry/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './cli.ts';

/**
 * `agentry test` against a real platform: the API in the embedded mode as its own process (PGlite,
 * in-process jobs), the model faked at the wire, the tools' endpoint a recording server that must
 * hear nothing (fixtures answer every call during tests).
 */

const repo = new URL('../../../', import.meta.url).pathname;
const ADMIN_TOKEN = 'cli-test-admin-token-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'agentry-cli-test-'));

/**
 * The agent follows its prompt, as a model would: one saying BROKEN never calls the refund tool,
 * one saying SLOW takes seconds to answer. Keyed on the request, not on arrival order.
 */
function agentModel(req: FakeRequest): FakeTurn {
  const messages: any[] = req.body.messages ?? [];
  const system = String(messages.find((m) => m.role === 'system')?.content ?? '');
  const last = messages.at(-1);
  if (system.includes('SLOW')) return { type: 'reply', text: 'Let me think.', delayMs: 4000 };
  if (last?.role === 'tool') return { type: 'reply', text: 'Your refund of order 1042 is done.' };
  if (/refund/i.test(String(last?.content ?? '')) && !system.includes('BROKEN')) {
    return { type: 'reply', toolCalls: [{ name: 'refund_order', arguments: { order_id: '1042' } }] };
  }
  return { type: 'reply', text: 'I cannot help with refunds.' };
}

function refundConfig(name: string, background: string, endpoint: string) {
  return {
    basic_settings: { name, background },
    tools: [
      {
        name: 'refund_order',
        description: 'Refund an order',
        parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
        endpoint: { url: `${endpoint}/refunds`, method: 'POST', body: { order_id: '{{order_id}}' } },
      },
    ],
  };
}

const REFUND_CASE = {
  name: 'Refund a broken order',
  turns: [
    {
      user: 'Please refund order 1042, it arrived broken.',
      expect: [
        {
          type: 'tool_called',
          tool: 'refund_order',
          arguments: { type: 'object', properties: { order_id: { const: '1042' } }, required: ['order_id'] },
        },
        { type: 'reply_contains', text: 'refund' },
      ],
    },
  ],
  fixtures: [{ tool: 'refund_order', output: { status: 'refunded' } }],
};

function writeJson(name: string, value: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

/** Starts `apps/api` in the embedded mode and resolves with its URL once its banner says it listens. */
function startApi(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(repo, 'apps/api/src/main.ts'), '--embedded'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /running \(embedded mode\) at (http:\/\/\S+)/.exec(output)?.[1];
      if (url) resolve({ child, url });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the API exited with ${code}:\n${output}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function run(argv: string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t) }, env);
  return { code, out, err };
}

describe('agentry test (a real platform, the model faked at the wire)', () => {
  let llm: FakeLlmServer;
  let tools: RecordingServer;
  /** Stands in for an API that must not be asked anything. */
  let silent: RecordingServer;
  let api: { child: ChildProcess; url: string };
  let key: string;
  let env: Record<string, string>;
  const get = async (path: string) =>
    (await fetch(`${api.url}${path}`, { headers: { authorization: `Bearer ${key}` } })).json() as Promise<any>;

  beforeAll(async () => {
    llm = await startFakeLlm({ responder: agentModel });
    tools = await startRecordingServer();
    silent = await startRecordingServer();
    api = await startApi({
      DATA_DIR: join(dir, 'data'),
      PORT: '0',
      PLATFORM_ADMIN_TOKEN: ADMIN_TOKEN,
      OPENAI_BASE_URL: llm.openaiBaseUrl,
      OPENAI_API_KEY: 'test-key',
      EGRESS_ALLOWLIST: '127.0.0.1',
      DEMO_MODEL: 'false',
      LOG_LEVEL: 'silent',
    });
    const tenant = await fetch(`${api.url}/v1/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'CLI tests' }),
    });
    expect(tenant.status).toBe(201);
    key = ((await tenant.json()) as any).api_key.key;
    env = { AGENTRY_API_URL: api.url, AGENTRY_API_KEY: key };
  }, 60_000);
  afterAll(async () => {
    if (api) await stop(api.child);
    await Promise.all([llm?.close(), tools?.close(), silent?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    tools.reset();
    silent.reset();
  });

  it('a passing config and cases file: exit 0 as a program, a ✓ line, a new unpublished agent; no tool request', async () => {
    const config = writeJson('passing.json', refundConfig('Refund desk', 'You refund broken orders.', tools.url));
    const cases = writeJson('cases.json', { object: 'agent_tests', agent_id: null, tests: [REFUND_CASE] });
    const main = join(repo, 'apps/cli/src/main.ts');
    const { stdout } = await promisify(execFile)(process.execPath, [main, 'test', config, '--cases', cases], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    expect(stdout).toContain('✓ Refund a broken order\n');
    expect(stdout).toMatch(/✓ passed · 1 case: 1 passed, 0 failed · \d+ tokens/);
    const agents = (await get('/v1/agents')).data.filter((a: any) => a.name === 'Refund desk');
    expect(agents).toMatchObject([{ latest_version: 1, published_version: null }]);
    expect(tools.requests).toEqual([]);
  });

  it('a config whose prompt makes the model skip the tool: exit 1 with the failing expectation’s detail', async () => {
    const config = writeJson('broken.json', refundConfig('Broken desk', 'BROKEN: never refund.', tools.url));
    const cases = writeJson('cases-array.json', [REFUND_CASE]);
    const result = await run(['test', config, '--cases', cases], env);
    expect(result.code, result.err).toBe(1);
    expect(result.out).toContain('✗ Refund a broken order\n');
    expect(result.out).toContain('Failing cases:');
    expect(result.out).toContain('      ✗ tool_called refund_order: refund_order was not called; no tool was called');
    expect(result.out).toMatch(/✗ failed · 1 case: 0 passed, 1 failed · \d+ tokens \(\d+ in, \d+ out\) · cost/);
    expect(tools.requests).toEqual([]);
  });

  it('the same config twice tests the same version; a changed one adds a draft; --json prints the run', async () => {
    const cases = writeJson('cases-again.json', [REFUND_CASE]);
    const config = writeJson('again.json', refundConfig('Again desk', 'You refund broken orders.', tools.url));
    expect((await run(['test', config, '--cases', cases], env)).code).toBe(0);
    const second = await run(['test', config, '--cases', cases, '--json'], env);
    expect(second.code).toBe(0);
    expect(second.err).toContain('Version 1 of Again desk already has this config');
    const agentId = JSON.parse(second.out).agent_id;
    expect(JSON.parse(second.out)).toMatchObject({ status: 'passed', agent_version: 1, results: [{ passed: true }] });
    expect((await get(`/v1/agents/${agentId}/versions`)).data).toHaveLength(1);

    writeJson('again.json', refundConfig('Again desk', 'BROKEN now.', tools.url));
    const changed = await run(['test', config, '--cases', cases], env);
    expect(changed.code).toBe(1);
    expect(changed.out).toContain('as version 2 of Again desk (a draft, not published)');
    const versions = (await get(`/v1/agents/${agentId}/versions`)).data;
    expect(versions.map((v: any) => [v.version, v.published])).toEqual([
      [2, false],
      [1, false],
    ]);
  });

  it('no verdict within --timeout: exit 2, and the run is cancelled', async () => {
    const config = writeJson('slow.json', refundConfig('Slow desk', 'SLOW', tools.url));
    const cases = writeJson('cases-slow.json', [REFUND_CASE]);
    const result = await run(['test', config, '--cases', cases, '--timeout', '1.5'], env);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/no verdict within --timeout 1\.5 s: gave up waiting for test run \S+ \(cancelled\)/);
    const agentId = (await get('/v1/agents')).data.find((a: any) => a.name === 'Slow desk').id;
    expect((await get(`/v1/agents/${agentId}/test-runs`)).data).toMatchObject([{ status: 'cancelled' }]);
  });

  it('an API that refuses says why, with the field: exit 2', async () => {
    const config = writeJson('refused.json', refundConfig('Refused desk', 'You refund broken orders.', tools.url));
    const cases = writeJson('bad-cases.json', [{ name: 'No turns', turns: [] }]);
    const result = await run(['test', config, '--cases', cases], env);
    expect(result.code).toBe(2);
    expect(result.err).toContain('the API refused POST /v1/agents/');
    expect(result.err).toContain('422 validation_failed');
    expect(result.err).toContain('cases[0].turns');
  });

  it('without a key: exit 2 naming AGENTRY_API_KEY, nothing sent', async () => {
    const config = writeJson('nokey.json', refundConfig('No key', 'x', tools.url));
    const result = await run(['test', config], { AGENTRY_API_URL: silent.url });
    expect(result.code).toBe(2);
    expect(result.err).toContain('AGENTRY_API_KEY');
    expect(silent.requests).toEqual([]);
  });

  it('an API that cannot be reached: exit 2 naming the URL', async () => {
    const config = writeJson('unreachable.json', refundConfig('Nowhere', 'x', tools.url));
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = await run(['test', config, '--api-url', url, '--key', 'sk_x']);
    expect(result.code).toBe(2);
    expect(result.err).toContain(`cannot reach the Agentry API at ${url} (ECONNREFUSED)`);
  });

  it('an invalid config: exit 1 with its issues and no request', async () => {
    const config = writeJson('invalid.json', { basic_settings: { name: 'x' }, tools: [{ name: 't', endpont: {} }] });
    const result = await run(['test', config, '--api-url', silent.url, '--key', 'sk_x']);
    expect(result.code).toBe(1);
    expect(result.err).toContain('is not a valid config');
    expect(result.err).toContain('unknown key `endpont`');
    expect(silent.requests).toEqual([]);
  });

  it('a cases file that is not JSON (or not cases, or missing): exit 2 naming the file, no request', async () => {
    const config = writeJson('fine.json', refundConfig('Fine', 'x', tools.url));
    const notJson = writeJson('not-json.json', '{ "tests": [');
    const options = ['--api-url', silent.url, '--key', 'sk_x'];
    const broken = await run(['test', config, '--cases', notJson, ...options]);
    expect([broken.code, broken.err]).toEqual([
      2,
      expect.stringContaining(`--cases ${notJson}: the file is not valid JSON`),
    ]);
    const notCases = await run(['test', config, '--cases', writeJson('object.json', { cases: [] }), ...options]);
    expect([notCases.code, notCases.err]).toEqual([2, expect.stringContaining('expected an array of cases')]);
    const missing = await run(['test', config, '--cases', join(dir, 'nope.json'), ...options]);
    expect([missing.code, missing.err]).toEqual([2, expect.stringContaining('nope.json: file not found')]);
    expect(silent.requests).toEqual([]);
  });
});
